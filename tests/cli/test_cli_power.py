"""``pairboot power``: the command line's plans equal the API's, its reports, its errors.

The numbers are compared with :func:`pairboot.power` called on the same inputs: the
parameter form, a pilot of two columns, a pilot in groups, a family with ``--systems``,
and the simulation check with one seed.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import numpy as np
import pytest
from helpers import assert_one_line_error, real_data, run_cli, run_in_process

import pairboot
from pairboot.cli import parser as cli_parser
from pairboot.cli import power as cli_power
from pairboot.cli import progress


def planned(*args) -> dict:
    """The JSON report of ``pairboot power ARGS``, without its schema's name and its
    summary line."""
    proc = run_in_process("power", *args, "--format", "json")
    assert proc.returncode == 0, proc.stderr.decode()
    out = json.loads(proc.stdout)
    assert out.pop("schema") == "pairboot.power/1"
    out.pop("summary")
    return out


def as_json(result) -> dict:
    """What the JSON report of ``result`` holds (its fields through JSON)."""
    return json.loads(json.dumps(result.to_dict()))


@pytest.fixture(scope="module")
def pilot(tmp_path_factory):
    """pilot.csv: id, doc (groups of 8), 0/1 scores of three systems a, b, c."""
    rng = np.random.default_rng(1)
    n = 400
    a = (rng.random(n) < 0.7).astype(int)
    b = np.where(a == 1, rng.random(n) < 0.8, rng.random(n) < 0.3).astype(int)
    c = (rng.random(n) < 0.72).astype(int)
    docs = [f"d{i // 8}" for i in range(n)]
    path = tmp_path_factory.mktemp("power") / "pilot.csv"
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "doc", "a", "b", "c"])
        for i in range(n):
            w.writerow([f"q{i}", docs[i], a[i], b[i], c[i]])
    return path, a.astype(float), b.astype(float), c.astype(float), docs


# --- the numbers are the API's --------------------------------------------------------


@pytest.mark.parametrize("args, keywords", [
    (["--accuracy-a", "0.72", "--accuracy-b", "0.74", "--discordant", "0.15", "--power",
      "0.8"], dict(accuracy_a=0.72, accuracy_b=0.74, discordant=0.15, power=0.8)),
    (["--sd", "0.5", "--delta", "0.05", "--n-items", "400"],
     dict(sd=0.5, delta=0.05, n_items=400)),
    (["--sd", "0.5", "--n-items", "300", "--power", "0.9", "--alternative", "greater"],
     dict(sd=0.5, n_items=300, power=0.9, alternative="greater")),
    (["--sd-a", "0.4", "--sd-b", "0.45", "--correlation", "0.6", "--delta", "0.03",
      "--power", "0.8", "--level", "0.99"],
     dict(sd_a=0.4, sd_b=0.45, correlation=0.6, delta=0.03, power=0.8,
          confidence_level=0.99)),
    (["--sd", "0.5", "--group-size", "10", "--icc", "0.1", "--delta", "0.05", "--power",
      "0.8"], dict(sd=0.5, group_size=10, icc=0.1, delta=0.05, power=0.8)),
    (["--sd", "0.5", "--run-sd", "0.3,0.2", "--residual-sd", "1", "--n-items", "500",
      "--delta", "0.3", "--power", "0.8"],
     dict(sd=0.5, run_sd=(0.3, 0.2), residual_sd=1.0, n_items=500, delta=0.3, power=0.8)),
    (["--sd", "0.5", "--delta", "0", "--power", "0.8", "--hypothesis", "non-inferiority",
      "--margin", "0.05"],
     dict(sd=0.5, delta=0.0, power=0.8, hypothesis="non-inferiority", margin=0.05)),
])
def test_the_parameter_form_plans_as_the_api(args, keywords):
    assert planned(*args) == as_json(pairboot.power(**keywords))


def test_the_text_report_opens_with_the_apis_summary():
    proc = run_in_process("power", "--accuracy-a", "0.72", "--accuracy-b", "0.74",
                          "--discordant", "0.15", "--power", "0.8")
    res = pairboot.power(accuracy_a=0.72, accuracy_b=0.74, discordant=0.15, power=0.8)
    assert proc.returncode == 0
    text = proc.stdout.decode()
    assert text.splitlines()[0] == res.summary()
    assert f"{res.n_items:,} paired items" in text
    # (the API's words, its arguments spelled as options: `test='mcnemar'`, --test mcnemar)
    assert text == cli_parser.cli_spelling(pairboot.report.render_power(res, "text"))
    assert "exact McNemar test          3,028 items, with --test mcnemar" in text


def test_markdown_is_the_apis_markdown():
    proc = run_in_process("power", "--sd", "0.5", "--delta", "0.1", "--power", "0.8",
                          "--format", "markdown")
    res = pairboot.power(sd=0.5, delta=0.1, power=0.8)
    assert proc.stdout.decode() == pairboot.report.render_power(res, "markdown")


def test_json_mirrors_to_dict_and_the_summary():
    proc = run_in_process("power", "--sd", "0.5", "--delta", "0.1", "--power", "0.8",
                          "--format", "json")
    res = pairboot.power(sd=0.5, delta=0.1, power=0.8)
    out = json.loads(proc.stdout)
    assert out.pop("schema") == "pairboot.power/1"
    assert out.pop("summary") == res.summary()
    assert out == as_json(res)
    assert out["n_items"] == res.n_items == 199


def test_a_pilot_of_two_columns_plans_as_the_api(pilot):
    path, a, b, _, _ = pilot
    got = planned(path, "--a", "a", "--b", "b", "--id", "id", "--delta", "0.03",
                  "--power", "0.8")
    assert got == as_json(pairboot.power(a, b, delta=0.03, power=0.8))
    assert got["source"] == "pilot" and got["pilot_items"] == 400


def test_a_pilot_of_two_files_plans_as_the_api(pilot, tmp_path):
    path, a, b, _, _ = pilot
    rows = list(csv.DictReader(open(path)))
    for name in ("a", "b"):
        with open(tmp_path / f"{name}.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["id", "score"])
            for r in reversed(rows) if name == "b" else rows:  # (joined on --id)
                w.writerow([r["id"], r[name]])
    got = planned(tmp_path / "a.csv", tmp_path / "b.csv", "--id", "id", "--n-items",
                  "1000", "--power", "0.8")
    assert got == as_json(pairboot.power(a, b, n_items=1000, power=0.8))


def test_a_pilot_in_groups_plans_as_the_api(pilot):
    path, a, b, _, docs = pilot
    got = planned(path, "--a", "a", "--b", "b", "--id", "id", "--group", "doc",
                  "--delta", "0.03", "--power", "0.8")
    expected = pairboot.power(a, b, groups=docs, delta=0.03, power=0.8)
    assert got == as_json(expected)
    assert got["n_groups"] == expected.n_groups and got["model"] == "design effect"


def test_a_pilot_with_strata_plans_as_the_api(pilot):
    path, a, b, _, docs = pilot
    strata = ["odd" if int(d[1:]) % 2 else "even" for d in docs]
    got = planned(path, "--a", "a", "--b", "b", "--id", "id", "--stratum", "doc",
                  "--delta", "0.05", "--power", "0.8")
    assert got == as_json(pairboot.power(a, b, strata=docs, delta=0.05, power=0.8))
    assert got != as_json(pairboot.power(a, b, strata=strata, delta=0.05, power=0.8))


def test_a_family_with_systems_plans_as_the_api(pilot):
    path, a, b, c, _ = pilot
    got = planned(path, "--systems", "a,b,c", "--baseline", "a", "--id", "id",
                  "--delta", "0.03", "--power", "0.8", "--correction", "bonferroni")
    expected = pairboot.power(scores={"a": a, "b": b, "c": c}, baseline="a",
                              correction="bonferroni", delta=0.03, power=0.8)
    assert got == as_json(expected)
    assert got["family"]["comparisons"] == [["a", "b"], ["a", "c"]]
    assert got["family"]["correction"] == "bonferroni"


def test_two_systems_named_as_a_family_are_one_pair(pilot):
    path, a, b, _, _ = pilot
    got = planned(path, "--systems", "a,b", "--id", "id", "--delta", "0.03", "--power",
                  "0.8")
    assert got == as_json(pairboot.power(a, b, delta=0.03, power=0.8))


def test_simulate_prints_its_sentence_and_equals_the_apis(pilot):
    path, a, b, _, _ = pilot
    proc = run_in_process("power", path, "--a", "a", "--b", "b", "--id", "id", "--delta",
                          "0.03", "--power", "0.8", "--simulate", "200", "--seed", "3")
    assert proc.returncode == 0, proc.stderr.decode()
    text = proc.stdout.decode()
    assert "Checked by simulation:" in text and "200 simulated evaluations" in text
    got = planned(path, "--a", "a", "--b", "b", "--id", "id", "--delta", "0.03",
                  "--power", "0.8", "--simulate", "200", "--seed", "3")
    expected = as_json(pairboot.power(a, b, delta=0.03, power=0.8, simulate=True,
                                      n_simulations=200, seed=3))
    for out in (got, expected):
        out["simulation"].pop("seconds")
    assert got == expected
    assert got["simulation"]["seed"] == 3 and got["simulation"]["n_simulations"] == 200


def test_a_non_inferiority_plan_at_delta_0_is_simulated(pilot):
    # delta = 0 is the usual non-inferiority plan: it was refused with --simulate
    path, *_ = pilot
    proc = run_in_process("power", path, "--a", "a", "--b", "b", "--id", "id", "--delta",
                          "0", "--hypothesis", "non-inferiority", "--margin", "0.05",
                          "--power", "0.8", "--simulate", "20", "--seed", "1")
    assert proc.returncode == 0, proc.stderr.decode()
    assert "20 simulated evaluations" in proc.stdout.decode()


def test_a_huge_simulate_is_refused_with_its_cost(pilot):
    path, *_ = pilot
    proc = run_in_process("power", path, "--a", "a", "--b", "b", "--id", "id", "--delta",
                          "0.03", "--power", "0.8", "--simulate", "1000000000")
    assert_one_line_error(proc, "--simulate 1,000,000,000", "days")


def test_simulate_without_a_number_runs_a_thousand(pilot, monkeypatch):
    path, *_ = pilot
    seen = {}
    real = pairboot.power

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real(*args, **{**kwargs, "n_simulations": 20})

    monkeypatch.setattr(pairboot, "power", spy)
    proc = run_in_process("power", path, "--a", "a", "--b", "b", "--delta", "0.03",
                          "--power", "0.8", "--simulate", "--seed", "1")
    assert proc.returncode == 0, proc.stderr.decode()
    assert seen["simulate"] is True and seen["n_simulations"] == 1000


class _Terminal:
    """A stand-in for a terminal's standard error: what the bar draws."""

    def __init__(self):
        self.text = ""

    def isatty(self):
        return True

    def write(self, s):
        self.text += s

    def flush(self):
        pass


def test_simulate_shows_a_progress_bar_on_a_terminal(pilot, monkeypatch):
    path, *_ = pilot
    bars = []

    class Bar(progress.ProgressBar):
        def __init__(self, total, stream=None, **kw):
            super().__init__(total, _Terminal(), **{**kw, "delay": 0.0})
            bars.append(self)

    monkeypatch.setattr(cli_power, "ProgressBar", Bar)
    proc = run_in_process("power", path, "--a", "a", "--b", "b", "--delta", "0.03",
                          "--power", "0.8", "--simulate", "50", "--seed", "1")
    assert proc.returncode == 0
    (bar,) = bars
    assert bar.total == 50
    assert "simulating [" in bar.stream.text and "50/50" in bar.stream.text
    bars.clear()
    run_in_process("power", path, "--a", "a", "--b", "b", "--delta", "0.03", "--power",
                   "0.8", "--simulate", "50", "--seed", "1", "--no-progress")
    assert bars[0].stream.text == ""  # (--no-progress: never drawn)
    bars.clear()
    run_in_process("power", path, "--a", "a", "--b", "b", "--delta", "0.03", "--power",
                   "0.8")
    assert bars == []  # (no simulation: no bar)


def test_the_bar_draws_nothing_off_a_terminal():
    bar = progress.ProgressBar(10, _NotATerminal(), delay=0.0, what="simulating")
    bar(10)
    assert bar.stream.text == ""


class _NotATerminal(_Terminal):
    def isatty(self):
        return False


# --- the output file -------------------------------------------------------------------


def test_output_is_written_atomically_and_equals_standard_output(tmp_path, monkeypatch):
    out = tmp_path / "plan.md"
    args = ["power", "--sd", "0.5", "--delta", "0.1", "--power", "0.8", "--format",
            "markdown"]
    replaced = []
    real = os.replace
    monkeypatch.setattr(os, "replace", lambda src, dst: (replaced.append((src, dst)),
                                                          real(src, dst)))
    proc = run_in_process(*args, "--output", out)
    assert proc.returncode == 0 and proc.stdout == b""
    assert out.read_bytes() == run_in_process(*args).stdout
    ((src, dst),) = replaced  # (through a temporary file in the same folder)
    assert Path(dst) == out.resolve() and Path(src).parent == out.resolve().parent
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.md"]


def test_a_failed_plan_leaves_the_previous_output(tmp_path):
    out = tmp_path / "plan.txt"
    out.write_text("before\n")
    proc = run_in_process("power", "--sd", "0.5", "--delta", "0", "--power", "0.8",
                          "--output", out)
    assert_one_line_error(proc, "--delta")
    assert out.read_text() == "before\n"


def test_output_never_overwrites_the_pilot(pilot):
    path, *_ = pilot
    before = path.read_bytes()
    proc = run_in_process("power", path, "--a", "a", "--b", "b", "--delta", "0.03",
                          "--power", "0.8", "--output", path)
    assert_one_line_error(proc, "--output", "an input")
    assert path.read_bytes() == before


# --- bad input: exit 2, one line naming the option -------------------------------------


BAD = [
    (["--sd", "0.5", "--delta", "0", "--power", "0.8"], "--delta is 0"),
    (["--sd", "0.5", "--delta", "0.1", "--power", "1.5"], "--power must be between 0 and 1"),
    (["--sd", "0.5", "--delta", "0.1", "--power", "0"], "--power"),
    (["--sd", "0.5", "--power", "0.8"], "--delta and --n-items"),
    (["--sd", "0.5", "--delta", "0.1", "--power", "0.8", "--n-items", "100"], "--power"),
    (["--sd", "0.5", "--delta", "0.1", "--n-items", "0"], "--n-items must be a positive"),
    (["--sd", "0.5", "--delta", "abc", "--power", "0.8"], "--delta: must be a number"),
    (["--sd", "0.5", "--delta", "0.1", "--power", "0.8", "--level", "95"],
     "--level must be between 0 and 1"),
    (["--accuracy-a", "0.7", "--accuracy-b", "1.2", "--discordant", "0.1", "--power",
      "0.8"], "--accuracy-b"),
    (["--sd", "0.5", "--run-sd", "1,2,3", "--delta", "0.1", "--power", "0.8"],
     "--run-sd"),
    (["--sd", "0.5", "--delta", "0.1", "--power", "0.8", "--group", "doc"],
     "--group describes a pilot's files"),
    (["--sd", "0.5", "--delta", "0.1", "--power", "0.8", "--simulate"], "--simulate"),
    (["--sd", "0.5", "--delta", "0.1", "--power", "0.8", "--plot", "curve.gif"],
     "curve.gif: give a file ending in .png"),
    (["--sd", "0.5", "--delta", "0.1", "--power", "0.8", "--sd", "0.4"],
     "--sd given twice"),
    (["--sd", "0.5", "--run-sd", "0.3", "--residual-sd", "1", "--n-runs", "3", "--delta",
      "0.3", "--power", "0.8", "--plot", "x.png"], "x.png: this plan has no curve"),
]


@pytest.mark.parametrize("args, words", BAD, ids=[w for _, w in BAD])
def test_bad_parameters_are_one_line(args, words, tmp_path):
    args = [str(tmp_path / a) if a in ("x.png", "curve.gif") else a for a in args]
    assert_one_line_error(run_in_process("power", *args), words)


def test_bad_pilots_are_one_line(pilot, tmp_path):
    path, *_ = pilot
    flat = tmp_path / "flat.csv"
    flat.write_text("id,a,b\n" + "".join(f"q{i},{i % 2},{i % 2}\n" for i in range(50)))
    cases = [
        ([flat, "--a", "a", "--b", "b", "--delta", "0.03", "--power", "0.8"],
         "no spread"),
        ([path, "--systems", "a,b,c", "--baseline", "x", "--delta", "0.03", "--power",
          "0.8"], "--baseline x: not one of the systems"),
        ([path, "--a", "a", "--b", "b", "--sd", "0.5", "--delta", "0.03", "--power",
          "0.8"], "--sd with a pilot"),
        ([path, "--a", "a", "--b", "b", "--delta", "0.03"], "--power"),
        ([path, "--a", "a", "--b", "nope", "--delta", "0.03", "--power", "0.8"], "nope"),
        ([path, "--a", "a", "--b", "b", "--delta", "1.5", "--power", "0.8"], "--delta"),
        ([path, "--a", "a", "--b", "b", "--n-groups", "30", "--power", "0.8"],
         "--n-groups needs groups"),
        ([path, "--systems", "a,b,c", "--delta", "0.03", "--power", "0.8", "--simulate"],
         "--simulate checks a plan of two systems"),
        ([path, "--systems", "a,b,c", "--delta", "0.03", "--power", "0.8", "--correction",
          "holm"], "--correction"),
    ]
    for args, words in cases:
        assert_one_line_error(run_in_process("power", *args), words)


@pytest.mark.slow
def test_bad_input_exits_2_from_the_real_process():
    proc = run_cli("power", "--sd", "0.5", "--delta", "0.1", "--power", "1.5")
    assert_one_line_error(proc, "--power must be between 0 and 1, got 1.5")
    ok = run_cli("power", "--sd", "0.5", "--delta", "0.1", "--power", "0.8")
    assert ok.returncode == 0 and b"199 paired items" in ok.stdout


# --- one declaration of compare's inputs -----------------------------------------------


def _options(name: str) -> dict:
    sub = next(a for a in cli_parser.build_parser()._actions
               if a.__class__.__name__ == "_SubParsersAction")
    return {s: a for a in sub.choices[name]._actions for s in a.option_strings}


def test_power_takes_compares_inputs_as_compare_declares_them():
    compare, power = _options("compare"), _options("power")
    inputs = ["--from", "--log-option", "--correct", "--system-column", "--id", "--labels",
              "--common-items", "--score", "--a", "--b", "--metric", "--stats", "--run",
              "--runs", "--paired-runs", "--group", "--group-weighting", "--stratum",
              "--stratum-weights", "--systems", "--names", "--baseline", "--level",
              "--alternative", "--margin", "--hypothesis", "--lower-is-better", "--seed",
              "--output", "--plot", "--format", "--no-progress"]
    for flag in inputs:
        assert flag in power, flag
        same = ("help", "default", "choices", "type", "metavar", "dest")
        if flag in ("--seed", "--plot", "--format", "--no-progress"):
            same = ("type", "dest")  # (their help says what this command does)
        for field in same:
            assert getattr(power[flag], field) == getattr(compare[flag], field), (flag, field)
    for flag in ("--resamples", "--method", "--stream", "--fail-if", "--plan",
                 "--unpaired"):
        assert flag not in power, flag
    # --test: the test planned for, of compare's one (issue 33: the exact McNemar test)
    assert power["--test"].dest == compare["--test"].dest == "test"
    assert set(power["--test"].choices) == {"mcnemar"} < set(compare["--test"].choices)
    for flag in ("--delta", "--power", "--n-items", "--n-groups", "--n-runs", "--simulate",
                 *(f"--{k.replace('_', '-')}" for k in cli_parser.KNOWN)):
        assert flag in power and flag not in compare, flag


# --- docs/power.md's real pilots -------------------------------------------------------


@pytest.mark.slow  # (over 2 s: a real pilot planned)
def test_the_docs_simpleqa_plans():
    folder = real_data("fastchat_simpleqa250")
    files = [folder / f"simple_qa_250_{s}_results.jsonl" for s in ("gpt-4o-agent",
                                                                    "gpt-4o-agent_serp")]
    common = [*files, "--id", "question_id", "--correct", "grade=A", "--power", "0.8"]
    proc = run_in_process("power", *common, "--n-items", "4326", "--simulate", "--seed", "1")
    text = proc.stdout.decode()
    assert text.startswith("with 4,326 paired items, the smallest difference detected with "
                           "80% power (two-sided, 95%) is +1.9 points\n"), text
    assert "Checked by simulation: 78.3% power (Monte Carlo error 1.3%) in 1,000" in text
    text = run_in_process("power", *common, "--delta", "0.03").stdout.decode()
    assert "about 1,673 paired items; unpaired, about 3,397 per system" in text


@pytest.mark.slow
def test_the_docs_wmt_plans():
    folder = real_data("wmt20_ende")
    common = [folder / "mqm_newstest2020_ende.avg_seg_scores.tsv", "--from", "wmt",
              "--systems", "OPPO.1535,Tohoku-AIP-NTT.890", "--group", "doc", "--log-option",
              f"docs={folder / 'wmt20_details_en-de.txt'}", "--power", "0.8"]
    text = run_in_process("power", *common, "--n-groups", "130").stdout.decode()
    assert text.splitlines()[0].endswith(" is +0.171")
    assert "design effect               1.67" in text
    text = run_in_process("power", *common, "--delta", "0.25", "--simulate", "--seed",
                          "1").stdout.decode()
    assert "about 62 groups (677 paired items)" in text
    assert "Checked by simulation: 86.4% power (Monte Carlo error 1.1%)" in text


# --- words that read right (issue 33) ----------------------------------------------------


def _text(*args) -> str:
    proc = run_in_process("power", *args)
    assert proc.returncode == 0, proc.stderr.decode()
    return proc.stdout.decode()


def test_a_power_near_1_is_not_rounded_to_100_percent():
    assert "with 99.9999% power" in _text("--sd", "0.5", "--delta", "0.3", "--power",
                                          "0.999999")
    assert "99.9999999999%)" in _text("--sd", "0.5", "--delta", "0.3", "--power", "0.8",
                                      "--level", "0.999999999999")
    # a power computed as 1 is 1 to the floats' digits, not exactly
    assert "detected with over 99.9999% power" in _text("--sd", "0.5", "--delta", "0.3",
                                                        "--n-items", "500")
    assert "detected with 72.1% power" in _text("--sd", "0.5", "--delta", "0.3",
                                                "--n-items", "20")


def test_a_negative_saving_reads_as_pairing_costing():
    text = _text("--sd-a", "0.5", "--sd-b", "0.5", "--correlation", "-0.9", "--delta",
                 "0.1", "--power", "0.8")
    assert "pairing costs               90% more items than unpaired" in text
    assert "saved by pairing" not in text and "-90%" not in text


def test_one_of_a_thing_is_singular():
    text = _text("--sd", "0.5", "--run-sd", "0", "--residual-sd", "1", "--n-runs", "1",
                 "--delta", "0.3", "--power", "0.8")
    assert "1 run per system" in text and "1 runs" not in text
    text = _text("--sd", "0.5", "--group-size", "1", "--icc", "0.1", "--delta", "0.3",
                 "--power", "0.8")
    assert "groups of 1 item on average" in text


def test_the_percent_words():
    from pairboot.report.power import percent  # noqa: PLC0415

    assert [percent(p) for p in (0.8, 0.95, 0.999999, 1 - 1e-12, 0.0001, 1.0)] == [
        "80%", "95%", "99.9999%", "99.9999999999%", "0.01%", "100%"]
    assert [percent(p, 1) for p in (0.8021, 0.9999996, 0.00000004, 0.0)] == [
        "80.2%", "99.99996%", "0.000004%", "0%"]
    assert percent(1.0, 1, exact=False) == "over 99.9999%"
    assert percent(0.004, 0) == "0.4%"


def test_a_tiny_pilot_is_warned_of(tmp_path):
    path = tmp_path / "tiny.csv"
    path.write_text("id,a,b\nq1,0.2,0.3\nq2,0.5,0.45\nq3,0.9,1.0\n")
    proc = run_in_process("power", path, "--a", "a", "--b", "b", "--id", "id", "--delta",
                          "0.02", "--power", "0.8")
    assert proc.returncode == 0, proc.stderr.decode()
    err = proc.stderr.decode()
    assert err.startswith("warning: a pilot of only 3 items") and "42 to 5,815 items" in err

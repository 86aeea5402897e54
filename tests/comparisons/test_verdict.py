"""The verdict: the headline of the report, print(result), and --fail-if's exit status."""

from __future__ import annotations

import dataclasses
import json
from statistics import NormalDist

import numpy as np
import pytest
from helpers import PROJECT_ROOT, run_cli, run_in_process

import pairboot
from pairboot import report
from pairboot.results.compare import ConfidenceInterval

RNG = np.random.default_rng(12)
N = 200
BASE = RNG.random(N)
CASES = {  # B - A: surely positive, surely negative, about zero
    "up": BASE + 0.05 + RNG.normal(0, 0.05, N),
    "down": BASE - 0.05 + RNG.normal(0, 0.05, N),
    "flat": BASE + RNG.normal(0, 0.05, N),
}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("verdict")
    out = {}
    for name, values in {"base": BASE, **CASES}.items():
        path = folder / f"{name}.csv"
        rows = "".join(f"{i},{float(v)!r}\n" for i, v in enumerate(values))
        path.write_text("id,score\n" + rows)
        out[name] = str(path)
    return out


@pytest.mark.parametrize(("case", "higher", "lower"), [
    ("up", "better", "worse"), ("down", "worse", "better"),
    ("flat", "inconclusive", "inconclusive"),
])
def test_verdict_reads_the_interval(case, higher, lower):
    res = pairboot.compare(BASE, CASES[case], seed=0)
    assert res.verdict() == higher
    assert res.verdict(lower_is_better=True) == lower
    low, high = res.confidence_interval
    assert (higher == "inconclusive") == (low <= 0 <= high)


# exit status of --fail-if: 1 exactly when the verdict is one the choice fails on
FAILS = {
    ("worse", "better"): 0, ("worse", "worse"): 1, ("worse", "inconclusive"): 0,
    ("not-better", "better"): 0, ("not-better", "worse"): 1,
    ("not-better", "inconclusive"): 1,
    ("different", "better"): 1, ("different", "worse"): 1, ("different", "inconclusive"): 0,
}


@pytest.mark.parametrize("lower_is_better", [False, True])
@pytest.mark.parametrize("fail_if", ["worse", "not-better", "different"])
@pytest.mark.parametrize("case", list(CASES))
def test_fail_if_exit_status(files, case, fail_if, lower_is_better):
    args = ["compare", files["base"], files[case], "--id", "id", "--fail-if", fail_if,
            "--format", "json"]
    if lower_is_better:
        args.append("--lower-is-better")
    proc = run_in_process(*args)
    data = json.loads(proc.stdout)
    verdict = pairboot.compare(BASE, CASES[case], seed=data["seed"]).verdict(
        lower_is_better=lower_is_better)
    assert data["decision"]["verdict"] == verdict
    assert proc.returncode == FAILS[fail_if, verdict], proc.stderr
    assert data["decision"]["failed"] == bool(FAILS[fail_if, verdict])
    assert data["decision"]["fail_if"] == fail_if
    assert data["decision"]["lower_is_better"] == lower_is_better
    err = proc.stderr.decode()
    assert ("--fail-if" in err) == bool(proc.returncode), err


@pytest.mark.slow  # (a fresh Python process)
def test_fail_if_in_a_real_process(files):
    proc = run_cli("compare", files["base"], files["down"], "--id", "id", "--fail-if",
                   "not-better")
    assert proc.returncode == 1
    assert proc.stdout.decode().startswith("B (")  # the report is still written
    assert "--fail-if not-better: B (" in proc.stderr.decode()
    ok = run_cli("compare", files["base"], files["up"], "--id", "id", "--fail-if",
                 "not-better")
    assert ok.returncode == 0, ok.stderr


def test_an_undefined_interval_fails_every_gate():
    res = pairboot.compare(BASE, CASES["up"], seed=0)
    nan = float("nan")
    res = dataclasses.replace(res, confidence_interval=ConfidenceInterval(nan, nan))
    assert res.verdict() == res.verdict(lower_is_better=True) == "undefined"
    failed = {f: report.decision(res, report.ReportContext(fail_if=f))["failed"]
              for f in report.FAIL_IF}
    assert failed == {gate: True for gate in ("worse", "not-better", "different", "inferior",
                                              "not-equivalent", "not-better-by-margin")}
    assert str(res).startswith("No verdict: the percentile interval is undefined")
    bca = dataclasses.replace(res, method="bca")
    assert str(bca).startswith("No verdict: the BCa interval is undefined")


@pytest.mark.parametrize(("case", "start"), [
    ("up", "B is better than A by +0.0"),
    ("down", "B is worse than A by 0.0"),
    ("flat", "No difference detected between B and A at this test-set size: B - A = "),
])
def test_headline_is_the_first_line(case, start):
    res = pairboot.compare(BASE, CASES[case], seed=0)
    text = str(res)
    assert text.startswith(start)
    assert "95% paired bootstrap over 200 items, p " in text.split("\n\n")[0]
    if case == "down":  # "worse by" the size; B - A keeps its sign
        assert "(B - A = -0.0" in text.split("\n\n")[0]
    d = report.decimals(res.standard_error)
    if case == "flat":  # the minimum detectable difference at 80% power, by hand
        mde = (NormalDist().inv_cdf(0.975) + NormalDist().inv_cdf(0.8)) * res.standard_error
        assert res.minimum_detectable == pytest.approx(mde, rel=1e-12)
        assert (f"this test set detects a difference of +-{mde:.{d}f} or more 80% of the time"
                in text.split("\n\n")[0])
        assert "would be needed" not in text  # (the observed-power trap is gone)
    low, high = res.confidence_interval
    assert f"[{low:+.{d}f}, {high:+.{d}f}]" in text.split("\n\n")[0]


def test_lower_is_better_headline():
    res = pairboot.compare(BASE, CASES["down"], seed=0)
    line = report.headline(res, report.ReportContext(lower_is_better=True))
    assert line.startswith("B is better than A by 0.0") and "(lower is better)" in line
    assert "(B - A = -0.0" in line
    assert res.summary(lower_is_better=True).startswith(line + "\n")


@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")
@pytest.mark.parametrize(("keywords", "context", "words"), [
    ({}, {}, "95% paired bootstrap over 200 items, p "),
    ({"paired": False}, {}, "95% unpaired bootstrap over 200 items, p "),
    ({"groups": np.arange(N) // 5}, {"group": "doc_id"},
     "95% paired cluster bootstrap over 40 groups (doc_id), p "),
    ({"groups": np.arange(N) // 5}, {}, "95% paired cluster bootstrap over 40 groups, p "),
    ({"strata": np.arange(N) % 3}, {"stratum": "task"},
     "95% paired stratified bootstrap over 200 items in 3 strata (task), p "),
    ({"groups": np.arange(N) // 5, "strata": (np.arange(N) // 5) % 2, "method": "bca"},
     {"group": "doc", "stratum": "src"},
     "95% paired stratified cluster BCa bootstrap over 40 groups (doc) in 2 strata (src), p "),
])
def test_the_headline_names_the_design_in_every_format(keywords, context, words):
    """Which units were resampled (items or groups, within strata), paired or not."""
    res = pairboot.compare(BASE, CASES["down"], n_resamples=500, seed=0, **keywords)
    ctx = report.ReportContext(**context)
    line = report.headline(res, ctx)
    assert words in line, line
    signed = f"B - A = {res.estimate:+.{report.decimals(res.standard_error)}f} ["
    if res.verdict() == "worse":  # "by" the size; B - A signed beside it
        assert line.startswith("B is worse than A by 0.0") and f"({signed}" in line
    else:
        assert line.startswith("No difference detected") and signed in line
    assert report.write_text(res, ctx).startswith(line + "\n")
    assert report.write_markdown(res, ctx).startswith(f"**{line}**\n")
    assert json.loads(report.write_json(res, ctx))["decision"]["headline"] == line


def test_print_result_is_the_text_report():
    res = pairboot.compare(BASE, CASES["up"], seed=0)
    assert str(res) == res.summary() == report.write_text(res)
    assert repr(res).startswith("CompareResult(estimate=") and "\n" not in repr(res)
    assert "\npairboot compare: B vs A\n" in str(res)
    named = res.summary(name_a="bm25", name_b="dense")
    assert named.startswith("B (dense) is better than A (bm25) by ")
    assert "\npairboot compare: dense (B) vs bm25 (A)\n" in named
    assert "\n  A  bm25 " in named


def test_markdown_starts_with_the_verdict():
    res = pairboot.compare(BASE, CASES["up"], seed=0)
    assert report.write_markdown(res).startswith(f"**{report.headline(res)}**\n")


def test_large_counts_have_thousands_separators():
    rng = np.random.default_rng(3)
    a = rng.random(12_345)
    res = pairboot.compare(a, a + rng.normal(0, 0.5, a.size), n_resamples=500, seed=0)
    text = str(res)
    assert "12,345 items" in text and "12345" not in text


def test_the_readmes_printed_result_is_what_print_shows():
    import csv

    root = PROJECT_ROOT
    readme = (root / "README.md").read_text(encoding="utf-8")
    start = readme.index("```text\nB is better than A") + len("```text\n")
    shown = readme[start:readme.index("```", start)].rstrip("\n").split("\n")

    def scores(name):
        with open(root / "examples" / name, newline="") as f:
            return [float(row["score"]) for row in csv.DictReader(f)]

    printed = str(pairboot.compare(scores("base.csv"), scores("new.csv"))).rstrip("\n")
    printed = printed.split("\n")
    # all but the signature's versions (pairboot's and numpy's own)
    assert printed[:-1] == shown[:-1]
    assert printed[-1].split(" | ")[1:-2] == shown[-1].split(" | ")[1:-2]

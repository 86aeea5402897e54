"""``pairboot compare FILE --a J_A --b J_B --gold-a G_A --gold-b G_B``: a judge's scores
and gold labels on a random subset; the command line equals ``pairboot.compare_ppi`` on
the same columns, and bad input is one error line."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from helpers import assert_one_line_error, run_in_process

import pairboot

N = 240


@pytest.fixture()
def table(tmp_path):
    rng = np.random.default_rng(4)
    q = rng.normal(0.5, 0.2, (N, 2)) + [0.0, 0.05]
    j = np.round(q + [0.1, 0.0] + rng.normal(0, 0.05, (N, 2)), 4)
    lab = rng.random(N) < 0.3
    g = np.round(q, 4)
    rows = [f"q{i},d{i // 4},{j[i, 0]},{j[i, 1]},"
            + (f"{g[i, 0]},{g[i, 1]}" if lab[i] else ",") for i in range(N)]
    path = tmp_path / "judged.csv"
    path.write_text("id,doc,ja,jb,ga,gb\n" + "\n".join(rows) + "\n")
    return path, j, np.where(lab[:, None], g, np.nan), np.array([f"d{i // 4}" for i in range(N)])


GOLD = ("--a", "ja", "--b", "jb", "--gold-a", "ga", "--gold-b", "gb")


def api(j, g, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pairboot.compare_ppi(j[:, 0], j[:, 1], gold_a=g[:, 0], gold_b=g[:, 1], **kw)


def test_the_command_line_equals_python(table):
    path, j, g, docs = table
    proc = run_in_process("compare", path, *GOLD, "--seed", 3, "--resamples", 500,
                          "--format", "json", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    res = api(j, g, seed=3, n_resamples=500)
    assert out["estimate"] == res.estimate and out["lam"] == res.lam
    assert [out["confidence_interval"][k] for k in ("low", "high")] == list(
        res.confidence_interval)
    proc = run_in_process("compare", path, *GOLD, "--method", "clt", "--group", "doc",
                          "--format", "json", "--names", "base,new", "--no-progress")
    out = json.loads(proc.stdout)
    res = api(j, g, method="clt", groups=docs)
    assert out["standard_error"] == res.standard_error and out["n_groups"] == N // 4
    assert out["name_a"] == "base"
    proc = run_in_process("compare", path, *GOLD, "--method", "clt", "--no-clip",
                          "--format", "json", "--no-progress")
    assert json.loads(proc.stdout)["lam"] == api(j, g, method="clt", clip=False).lam
    proc = run_in_process("compare", path, *GOLD, "--method", "clt", "--lam", "0.25",
                          "--format", "json", "--no-progress")
    out = json.loads(proc.stdout)
    assert (out["lam"], out["tuning"]) == (0.25, "fixed")


def test_strata_on_the_command_line(table):
    path, j, g, docs = table
    strata = np.array(["first" if int(d[1:]) < 30 else "second" for d in docs])
    proc = run_in_process("compare", path, *GOLD, "--method", "clt", "--stratum", "doc",
                          "--format", "json", "--no-progress")
    assert proc.returncode == 2  # (60 strata of 4 items: some without 2 labelled)
    assert "labelled" in proc.stderr.decode() and "--stratum" in proc.stderr.decode()
    text = path.read_text().splitlines()
    path.write_text("\n".join([text[0] + ",part"] + [
        f"{line},{s}" for line, s in zip(text[1:], strata)]) + "\n")
    proc = run_in_process("compare", path, *GOLD, "--method", "clt", "--stratum", "part",
                          "--stratum-weights", "first=1,second=3", "--format", "json",
                          "--no-progress")
    out = json.loads(proc.stdout)
    res = api(j, g, method="clt", strata=strata, strata_weights={"first": 1, "second": 3})
    assert out["estimate"] == res.estimate and out["n_strata"] == 2


def test_the_text_report_shows_the_three_estimates(table):
    path, *_ = table
    proc = run_in_process("compare", path, *GOLD, "--method", "clt", "--no-progress")
    text = proc.stdout.decode()
    assert proc.returncode == 0
    for row in ("judge only (biased)", "gold labels only", "prediction-powered"):
        assert row in text
    assert "| ppi clt |" in text and "columns ja,jb,ga,gb" in text


@pytest.mark.parametrize("extra, words", [
    (("--gold-b", "gb"), ("give both --gold-a and --gold-b",)),
    (("--lam", "0.5"), ("give both --gold-a and --gold-b",)),
    (("--gold-a", "ga", "--gold-b", "gb", "--runs", "seeds"), ("--runs",)),
    (("--gold-a", "ga", "--gold-b", "gb", "--method", "bca"), ("--method", "clt")),
    (("--gold-a", "ga", "--gold-b", "ja"), ("four different columns",)),
    (("--gold-a", "ga", "--gold-b", "nope"), ("nope",)),
])
def test_bad_use_is_one_line(table, extra, words):
    path, *_ = table
    assert_one_line_error(run_in_process("compare", path, "--a", "ja", "--b", "jb", *extra,
                                         "--no-progress"), *words)


def test_gold_on_one_system_only_names_the_option(table, tmp_path):
    path, *_ = table
    lines = path.read_text().splitlines()
    first = next(k for k, line in enumerate(lines) if not line.endswith(",,") and k)
    cells = lines[first].split(",")
    cells[-1] = ""
    lines[first] = ",".join(cells)
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(lines) + "\n")
    assert_one_line_error(run_in_process("compare", bad, *GOLD, "--no-progress"),
                          "bad.csv", f"line {first + 1}", "'gb' is empty",
                          "one system only")

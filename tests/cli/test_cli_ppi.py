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
    (("--gold-a", "ga", "--gold-b", "gb", "--runs", "seeds"), ("--runs seeds is not available",)),
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


# ------------------------------------------------------------- a file per system


@pytest.fixture()
def two_files(table, tmp_path):
    """The same items as ``table``, a JSON Lines file per system (the judge's column
    and the gold one, null where unlabelled), B's rows in another order."""
    path, j, g, docs = table
    order = np.random.default_rng(7).permutation(N)
    paths = []
    for k, rows in ((0, range(N)), (1, order)):
        lines = [json.dumps({"id": f"q{i}", "doc": docs[i], "judge": j[i, k],
                             "human": None if np.isnan(g[i, k]) else g[i, k]})
                 for i in rows]
        paths.append(tmp_path / ("base.jsonl", "new.jsonl")[k])
        paths[-1].write_text("\n".join(lines) + "\n")
    return paths, j, g, docs, order


TWO = ("--score", "judge", "--gold-score", "human")


def test_a_file_per_system_equals_python_and_the_one_file_layout(two_files, table):
    paths, j, g, docs, _ = two_files
    proc = run_in_process("compare", *paths, *TWO, "--id", "id", "--group", "doc",
                          "--method", "clt", "--format", "json", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    res = api(j, g, method="clt", groups=docs)
    assert out["estimate"] == res.estimate and out["standard_error"] == res.standard_error
    assert (out["n_gold"], out["n_groups"]) == (res.n_gold, N // 4)
    assert (out["name_a"], out["name_b"]) == ("base", "new")  # (the files' names)
    assert out["signature"].endswith("columns judge,human")
    one = run_in_process("compare", table[0], *GOLD, "--id", "id", "--group", "doc",
                         "--method", "clt", "--format", "json", "--no-progress")
    assert json.loads(one.stdout)["estimate"] == out["estimate"]
    proc = run_in_process("compare", *paths, *TWO, "--id", "id", "--seed", 3,
                          "--resamples", 500, "--format", "json", "--no-progress")
    assert json.loads(proc.stdout)["confidence_interval"]["low"] == (
        api(j, g, seed=3, n_resamples=500).confidence_interval.low)


def test_a_file_per_system_by_row_position(two_files, tmp_path):
    paths, j, g, *_ = two_files
    unnamed = []
    for k in range(2):  # (no id column: rows paired by position, in the items' order)
        unnamed.append(tmp_path / f"{'ab'[k]}.jsonl")
        unnamed[-1].write_text("".join(json.dumps(
            {"judge": j[i, k], "human": None if np.isnan(g[i, k]) else g[i, k]}) + "\n"
            for i in range(N)))
    proc = run_in_process("compare", *unnamed, *TWO, "--method", "clt", "--format",
                          "json", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["estimate"] == api(j, g, method="clt").estimate
    # Rows in another order, the ids showing it, and no --id: refused as compare does.
    assert_one_line_error(run_in_process("compare", *paths, *TWO, "--no-progress"),
                          "--id id")


def _edit(path, out, which, value):
    """``path``'s lines with the first row whose gold is (``which``) set or unset
    given ``value``; the edited row's line and id."""
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    k = next(i for i, r in enumerate(lines) if (r["human"] is not None) == which)
    lines[k]["human"] = value
    out.write_text("".join(json.dumps(r) + "\n" for r in lines))
    return k + 1, lines[k]["id"]


def test_an_item_labelled_in_one_file_only_names_both_rows(two_files, tmp_path):
    paths, *_ = two_files
    bad = tmp_path / "bad.jsonl"
    line, item = _edit(paths[1], bad, True, None)  # (B's gold removed)
    a_line = int(item[1:]) + 1
    assert_one_line_error(
        run_in_process("compare", paths[0], bad, *TWO, "--id", "id", "--no-progress"),
        f"bad.jsonl, line {line} (id '{item}'), column 'human': no gold score",
        f"base.jsonl, line {a_line} has one")
    line, item = _edit(paths[1], bad, False, 0.5)  # (B labelled where A is not)
    assert_one_line_error(
        run_in_process("compare", paths[0], bad, *TWO, "--id", "id", "--no-progress"),
        f"base.jsonl, line {int(item[1:]) + 1} (id '{item}'), column 'human': no gold",
        f"bad.jsonl, line {line} has one")
    _edit(paths[1], bad, True, "great")
    assert_one_line_error(
        run_in_process("compare", paths[0], bad, *TWO, "--id", "id", "--no-progress"),
        "bad.jsonl", "column 'human'", "great")


@pytest.mark.parametrize("extra, words", [
    (("--gold-a", "judge", "--gold-b", "human"), ("two layouts: give one",)),
    (("--a", "judge"), ("a file per system", "no --a/--b")),
    (("--gold-score", "other"), ("--gold-score given twice",)),
    (("--runs", "seeds"), ("--runs seeds is not available with --gold-score",)),
    (("--score", "other"), ("--score given twice",)),
])
def test_bad_use_of_a_file_per_system_is_one_line(two_files, extra, words):
    paths, *_ = two_files
    assert_one_line_error(run_in_process("compare", *paths, *TWO, "--id", "id",
                                         "--no-progress", *extra), *words)


def test_the_gold_column_is_not_the_judges(two_files):
    paths, *_ = two_files
    assert_one_line_error(run_in_process("compare", *paths, "--score", "judge",
                                         "--gold-score", "judge", "--no-progress"),
                          "--gold-score judge is also the judge's --score column")
    assert_one_line_error(run_in_process("compare", paths[0], *TWO, "--no-progress"),
                          "give two files")
    assert_one_line_error(run_in_process("compare", *paths, "--score", "judge",
                                         "--gold-score", "nope", "--no-progress"),
                          "base.jsonl: no column 'nope'")
    assert_one_line_error(run_in_process("compare", *paths, *TWO, "--common-items",
                                         "--gold-a", "x", "--no-progress"),
                          "two layouts")


def test_one_file_refuses_a_file_per_systems_options(table):
    path, *_ = table
    assert_one_line_error(run_in_process("compare", path, *GOLD, "--common-items",
                                         "--no-progress"),
                          "--common-items is for a file per system")


def test_latex_and_github_on_the_command_line(two_files):
    paths, *_ = two_files
    proc = run_in_process("compare", *paths, *TWO, "--id", "id", "--method", "clt",
                          "--format", "latex", "--no-progress")
    assert proc.returncode == 0 and r"\begin{tabular}" in proc.stdout.decode()
    proc = run_in_process("compare", *paths, *TWO, "--id", "id", "--method", "clt",
                          "--format", "github", "--no-progress")
    out, err = proc.stdout.decode(), proc.stderr.decode()
    assert out.startswith("### pairboot: new (B) against base (A), prediction-powered")
    # The judge flatters A's outputs by 0.1: an annotation on the run says so.
    assert err.startswith("::warning title=pairboot judge::The judge favours base")

"""The command line with a family of systems: a file per system, or --systems."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import assert_one_line_error, run_in_process

import pairboot

RNG = np.random.default_rng(31)
N = 150
BASE = RNG.random(N)
SCORES = {"base": BASE, "v1": BASE + RNG.normal(0.06, 0.05, N),
          "v2": BASE + RNG.normal(0.0, 0.05, N), "v3": BASE + RNG.normal(-0.04, 0.05, N)}
FAST = ("--resamples", "2000", "--seed", "5")


def write_files(folder):
    paths = []
    for name, values in SCORES.items():
        order = np.random.default_rng(len(name)).permutation(N)  # rows in another order
        rows = "".join(f"q{i},{float(values[i])!r}\n" for i in order)
        path = folder / f"{name}.csv"
        path.write_text("id,score\n" + rows)
        paths.append(str(path))
    return paths


def json_of(*args):
    proc = run_in_process(*args, "--format", "json")
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout)


def test_a_file_per_system_is_compare_many_on_the_aligned_scores(tmp_path):
    files = write_files(tmp_path)
    data = json_of("compare", *files, "--id", "id", "--baseline", "base", *FAST)
    order = np.random.default_rng(len("base")).permutation(N)  # (the first file's rows)
    aligned = {name: values[order] for name, values in SCORES.items()}
    expected = pairboot.compare_many(aligned, baseline="base", n_resamples=2000, seed=5)
    assert [(c["a"], c["b"]) for c in data["comparisons"]] == [
        ("base", "v1"), ("base", "v2"), ("base", "v3")]
    for got, want in zip(data["comparisons"], expected.comparisons):
        assert got["estimate"] == pytest.approx(want.estimate, abs=1e-12)
        assert got["p_adjusted"] == pytest.approx(want.p_adjusted, abs=1e-12)
        assert got["significant"] == want.significant
    assert data["correction"] == "max-t" and data["family_size"] == 3


def test_one_file_with_systems_and_names(tmp_path):
    path = tmp_path / "runs.csv"
    cols = list(SCORES)
    rows = "".join(",".join([f"q{i}", *(repr(float(SCORES[c][i])) for c in cols)]) + "\n"
                   for i in range(N))
    path.write_text("id," + ",".join(cols) + "\n" + rows)
    data = json_of("compare", str(path), "--systems", ",".join(cols), "--id", "id",
                   "--names", "B0,V1,V2,V3", "--correction", "holm", *FAST)
    expected = pairboot.compare_many(dict(zip(["B0", "V1", "V2", "V3"], SCORES.values())),
                                     correction="holm", n_resamples=2000, seed=5)
    assert [(c["a"], c["b"]) for c in data["comparisons"]] == [
        (c.a, c.b) for c in expected.comparisons]
    assert [c["p_adjusted"] for c in data["comparisons"]] == pytest.approx(
        [c.p_adjusted for c in expected.comparisons], abs=1e-12)
    assert set(data["rank_intervals"]) == {"B0", "V1", "V2", "V3"}


def test_text_report_of_a_family(tmp_path):
    files = write_files(tmp_path)
    proc = run_in_process("compare", *files, "--id", "id", *FAST)
    assert proc.returncode == 0, proc.stderr.decode()
    text = proc.stdout.decode()
    for name in SCORES:
        assert name in text
    assert "chosen when the command was run" in text


@pytest.mark.parametrize(("extra", "words"), [
    (["--fail-if", "worse"], ["--fail-if decides between two systems"]),
    (["--names", "a,b"], ["--names gives 2 names for 4 systems"]),
    (["--names", "a,b,a,c"], ["--names names 'a' twice"]),
    (["--baseline", "nope"], ["--baseline nope: not one of the systems"]),
    (["--a", "base"], ["--a/--b name two systems"]),
])
def test_family_errors(tmp_path, extra, words):
    files = write_files(tmp_path)
    assert_one_line_error(run_in_process("compare", *files, "--id", "id", *FAST, *extra),
                          *words)


def test_systems_needs_one_file(tmp_path):
    files = write_files(tmp_path)
    assert_one_line_error(run_in_process("compare", *files[:2], "--systems", "a,b"),
                          "--systems names the columns of one file")


PLAN = """\
systems = ["base", "v1", "v2", "v3"]
baseline = "base"
metric = "mean"
confidence_level = 0.95
correction = "max-t"
n_resamples = 2000
seed = 5
"""


def test_a_plan_runs_exactly_and_its_hash_is_in_the_report(tmp_path):
    import hashlib

    files = write_files(tmp_path)
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    digest = hashlib.sha256(plan.read_bytes()).hexdigest()
    proc = run_in_process("plan", "hash", str(plan))
    assert proc.returncode == 0 and proc.stdout.decode().strip() == digest
    data = json_of("compare", *files, "--id", "id", "--plan", str(plan))
    planned = json_of("compare", *files, "--id", "id", "--baseline", "base", *FAST)
    assert [c["p_adjusted"] for c in data["comparisons"]] == [
        c["p_adjusted"] for c in planned["comparisons"]]
    assert digest in json.dumps(data)
    text = run_in_process("compare", *files, "--id", "id", "--plan", str(plan))
    assert digest in text.stdout.decode()
    assert "chosen when the command was run" not in text.stdout.decode()


@pytest.mark.parametrize("extra", [
    ["--seed", "6"], ["--level", "0.9"], ["--correction", "holm"], ["--resamples", "999"],
])
def test_a_run_outside_the_plan_is_refused(tmp_path, extra):
    files = write_files(tmp_path)
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    assert_one_line_error(run_in_process("compare", *files, "--id", "id", "--plan",
                                         str(plan), *extra), "plan")


def test_a_plan_runs_no_code_unless_the_command_names_it(tmp_path):
    """A plan's ``FILE.py:NAME`` metric is code: it runs only with --metric naming it."""
    files = write_files(tmp_path)
    (tmp_path / "mine.py").write_text(
        "import pathlib, pairboot\n"
        "pathlib.Path(__file__).with_name('ran').touch()\n"
        "M = pairboot.metrics.MEAN\n")
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN.replace('"mean"', '"mine.py:M"'))
    assert_one_line_error(run_in_process("compare", *files, "--id", "id", "--plan",
                                         str(plan)), "is code", "--metric")
    assert not (tmp_path / "ran").exists()
    data = json_of("compare", *files, "--id", "id", "--plan", str(plan), "--metric",
                   str(tmp_path / "mine.py") + ":M")
    assert (tmp_path / "ran").exists() and len(data["comparisons"]) == 3


def test_a_plan_refuses_a_system_outside_it(tmp_path):
    files = write_files(tmp_path)
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN.replace('"v3"]', '"v4"]'))
    assert_one_line_error(run_in_process("compare", *files, "--id", "id", "--plan",
                                         str(plan)), "plan")


@pytest.mark.slow
def test_plot_draws_the_family_or_the_distribution(tmp_path):
    pytest.importorskip("matplotlib")
    files = write_files(tmp_path)
    forest, dist = tmp_path / "forest.png", tmp_path / "dist.svg"
    assert run_in_process("compare", *files, "--id", "id", *FAST, "--plot",
                          str(forest)).returncode == 0
    assert forest.read_bytes().startswith(b"\x89PNG")
    assert run_in_process("compare", *files[:2], "--id", "id", *FAST, "--plot",
                          str(dist)).returncode == 0
    assert b"<svg" in dist.read_bytes()[:500]
    assert_one_line_error(run_in_process("compare", *files[:2], "--id", "id", "--plot",
                                         str(tmp_path / "x.txt")), "--plot", ".png")
    # never over an input, and checked before the run
    assert_one_line_error(run_in_process("compare", *files[:2], "--id", "id", "--plot",
                                         files[0]), "--plot")


def test_a_plan_with_two_files_is_still_the_plan(tmp_path):
    # (with two files --plan was ignored: a plain two-system compare ran)
    files = write_files(tmp_path)
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    assert_one_line_error(run_in_process("compare", *files[:2], "--id", "id", "--plan",
                                         str(plan)), "plan")


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("layout", ["files", "systems"])
def test_a_family_of_two_is_the_two_system_comparison(tmp_path, layout, stream):
    """Two systems with --baseline: one comparison, reported (and gated) as compare()
    of the baseline (A) and the other (B), whichever order they were given in."""
    files = write_files(tmp_path)[:2]  # base, v1
    if layout == "files":
        inputs = [files[1], files[0], "--id", "id"]  # v1 first, base the baseline
    else:
        rows = "".join(f"q{i},{float(SCORES['v1'][i])!r},{float(SCORES['base'][i])!r}\n"
                       for i in range(N))
        (tmp_path / "wide.csv").write_text("id,v1,base\n" + rows)
        inputs = [str(tmp_path / "wide.csv"), "--systems", "v1,base", "--id", "id"]
    extra = ("--stream", "--no-progress") if stream else ()
    data = json_of("compare", *inputs, "--baseline", "base", *FAST, *extra)
    expected = SCORES["v1"].mean() - SCORES["base"].mean()
    assert data["estimate"] == pytest.approx(expected, abs=1e-12)
    assert data["decision"]["verdict"] == "better"
    gate = run_in_process("compare", *inputs, "--baseline", "v1", "--fail-if", "worse",
                          *FAST, *extra)  # base - v1 is worse: the gate fails
    assert gate.returncode == 1, gate.stderr.decode()
    assert "--fail-if worse" in gate.stderr.decode()


def test_a_family_too_large_is_one_line_naming_what_makes_it_smaller(tmp_path):
    """A long table of 200 systems x 3 items (19,900 pairs: past 120 s in issue 33) is
    refused with the size and --baseline / --resamples, before any resampling."""
    rows = "".join(f"s{j},q{i},{(i * j) % 2}\n" for j in range(200) for i in range(3))
    path = tmp_path / "long.csv"
    path.write_text("system,id,score\n" + rows)
    proc = run_in_process("compare", path, "--system-column", "system", "--id", "id",
                          "--no-progress")
    assert_one_line_error(proc, "200 systems (all pairs)", "19,900 comparisons",
                          "--baseline (every system against one: 199 comparisons)",
                          "fewer --resamples")

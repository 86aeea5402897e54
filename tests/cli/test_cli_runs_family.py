"""Several runs per system on the command line, beyond two long tables: a family of
systems with runs from long tables (``--run`` with ``--systems`` or a file per system), and
harness logs written ``NAME=PATH`` (the logs sharing a NAME are one system's runs).

Every command's JSON equals the report of the Python API (``compare`` or ``compare_many``
with ``runs=``) on the same items x runs tables with the same seed; bad inputs give one
``error:`` line and exit 2.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import assert_one_line_error, inspect_log, lm_eval_output, run_in_process

import pairboot
from pairboot.cli.harness import named_inputs
from pairboot.report import render, render_family

pytestmark = pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")

SEED, RESAMPLES = 5, 500
RUN = ("--seed", str(SEED), "--resamples", str(RESAMPLES), "--format", "json",
       "--no-progress")


def _json(*args):
    proc = run_in_process("compare", *args, *RUN)
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout)


def _error(*args):
    return run_in_process("compare", *args, "--no-progress")


def _same(got: dict, result) -> None:
    """The command's JSON holds the API result's report: every field of the result
    (warnings and the reading aside: the command line words them with its options)."""
    family = hasattr(result, "comparisons")
    want = json.loads(render_family(result, "json") if family else render(result, "json"))
    for key in result.to_dict():
        if key not in ("warnings", "reading"):
            assert got[key] == want[key], key


def _tables(names=("base", "v1", "v2"), n=40, runs=(3, 3, 3), seed=0, binary=False):
    """Items x runs tables: a shared item effect, a run effect, noise; 0/1 when binary."""
    rng = np.random.default_rng(seed)
    item = rng.normal(0, 1, n)
    out = {}
    for k, (name, r) in enumerate(zip(names, runs)):
        y = item[:, None] + 0.2 * k + rng.normal(0, 0.3, r) + rng.normal(0, 1, (n, r))
        out[name] = (y > 0.3).astype(float) if binary else np.round(y, 6)
    return out


# --- long tables: a family of systems with runs ------------------------------------------


def _long_one_file(path, tables, order):
    names = list(tables)
    r = tables[names[0]].shape[1]
    rows = [",".join([f"q{i}", f"s{j}", *(repr(float(tables[s][i, j])) for s in names)])
            for j in range(r) for i in order]
    path.write_text("id,seed," + ",".join(names) + "\n" + "\n".join(rows) + "\n")
    return path


def _long_file(path, table, order, run_order=None):
    run_order = range(table.shape[1]) if run_order is None else run_order
    path.write_text("id,seed,score\n" + "".join(
        f"q{i},s{j},{float(table[i, j])!r}\n" for j in run_order for i in order))
    return path


@pytest.mark.parametrize("kind, correction", [("seeds", "holm"), ("seeds", "bonferroni"),
                                              ("samples", "max-t")])
def test_one_file_with_systems(tmp_path, kind, correction):
    tables = _tables()
    path = _long_one_file(tmp_path / "long.csv", tables, range(40))
    got = _json(path, "--id", "id", "--run", "seed", "--runs", kind, "--systems",
                "base,v1,v2", "--baseline", "base", "--correction", correction)
    res = pairboot.compare_many(tables, runs=kind, baseline="base", correction=correction,
                                seed=SEED, n_resamples=RESAMPLES)
    _same(got, res)
    assert [(c["a"], c["b"]) for c in got["comparisons"]] == [("base", "v1"), ("base", "v2")]
    assert got["input"]["layout"] == "one row per item and run ('seed'), a column per system"
    if kind == "samples":
        assert any("--runs samples" in note for note in got["notes"])


def test_a_file_per_system_with_different_runs(tmp_path):
    """Unpaired seeds: each file its own runs (3, 2 and 4), rows in other orders; the
    items are the first file's, in its order."""
    tables = _tables(names=("base", "v1", "v2"), runs=(3, 2, 4), seed=1)
    rng = np.random.default_rng(2)
    orders = [rng.permutation(40) for _ in tables]
    files = [_long_file(tmp_path / f"{name}.csv", t, o)
             for (name, t), o in zip(tables.items(), orders)]
    got = _json(*files, "--id", "id", "--run", "seed", "--runs", "seeds", "--correction",
                "holm")
    aligned = {name: t[orders[0]] for name, t in tables.items()}
    res = pairboot.compare_many(aligned, runs="seeds", correction="holm", seed=SEED,
                                n_resamples=RESAMPLES)
    _same(got, res)
    assert list(got["systems"]) == ["base", "v1", "v2"]  # (the files' stems)


def test_a_file_per_system_with_paired_runs(tmp_path):
    """--paired-runs matches the runs by label, whatever their order in each file."""
    tables = _tables(seed=3)
    files = [_long_file(tmp_path / f"{name}.csv", t, range(40), run_order)
             for (name, t), run_order in zip(tables.items(), ([0, 1, 2], [2, 0, 1],
                                                              [1, 2, 0]))]
    got = _json(*files, "--id", "id", "--run", "seed", "--runs", "seeds", "--paired-runs",
                "--correction", "holm", "--names", "B,V1,V2")
    res = pairboot.compare_many(dict(zip(("B", "V1", "V2"), tables.values())), runs="seeds",
                                paired_runs=True, correction="holm", seed=SEED,
                                n_resamples=RESAMPLES)
    _same(got, res)


def test_two_systems_with_a_family_option(tmp_path):
    """Two files and --baseline: the comparison of two systems (its report and its
    --fail-if), the baseline as A whichever file comes first, as without runs."""
    tables = _tables(names=("base", "new"), runs=(3, 3))
    files = [_long_file(tmp_path / f"{name}.csv", t, range(40)) for name, t in tables.items()]
    got = _json(*files[::-1], "--id", "id", "--run", "seed", "--runs", "seeds", "--baseline",
                "base", "--correction", "holm")
    res = pairboot.compare(tables["base"], tables["new"], runs="seeds", seed=SEED,
                           n_resamples=RESAMPLES)
    _same(got, res)
    assert "comparisons" not in got
    gate = _error(*files, "--id", "id", "--run", "seed", "--runs", "seeds", "--baseline",
                  "base", "--fail-if", "not-better", "--seed", str(SEED), "--resamples",
                  str(RESAMPLES))
    assert gate.returncode == (0 if res.verdict() == "better" else 1), gate.stderr.decode()


def test_bad_long_table_families(tmp_path):
    tables = _tables(runs=(3, 3, 2))
    one = _long_one_file(tmp_path / "long.csv", {k: v for k, v in tables.items()
                                                 if v.shape[1] == 3}, range(40))
    files = [_long_file(tmp_path / f"{name}.csv", t, range(40)) for name, t in tables.items()]
    common = ("--id", "id", "--run", "seed", "--runs", "seeds")
    assert_one_line_error(_error(*files, *common, "--paired-runs"), "v2.csv", "'s2'",
                          "--paired-runs")
    # a group column must hold one value per item, whatever the run
    assert_one_line_error(_error(*files, *common, "--group", "seed"), "'seed'",
                          "same in every run")
    assert_one_line_error(_error(one, *common, "--systems", "base,v1", "--stats", "a,b"),
                          "--stats", "compares two systems")
    assert_one_line_error(_error(*files, *common, "--systems", "base,v1"), "--systems",
                          "3 files")
    assert_one_line_error(_error(one, *common, "--systems", "base,v1,nope"), "long.csv",
                          "'nope'")
    assert_one_line_error(_error(one, *common, "--systems", "base,v1", "--a", "base"),
                          "--a/--b")
    assert_one_line_error(_error(*files, *common, "--fail-if", "worse"), "--fail-if")
    plan = tmp_path / "plan.toml"
    plan.write_text('systems = ["base", "v1", "v2"]\n')
    assert_one_line_error(_error(*files, *common, "--plan", plan), "--plan", "--runs")
    short = tmp_path / "short.csv"
    lines = (tmp_path / "v1.csv").read_text().splitlines()
    short.write_text("\n".join(line for line in lines if not line.startswith("q7,"))
                     + "\n")
    assert_one_line_error(_error(files[0], short, files[2], *common), "short.csv", "'q7'")


# --- NAME=PATH: several harness logs per system ------------------------------------------


def _lm_eval_runs(tmp_path, tables, orders=None):
    """An lm-eval output folder per system and run (``<name>_seed<r>``, one task); the
    NAME=PATH arguments in system then run order."""
    args = []
    for name, t in tables.items():
        for r in range(t.shape[1]):
            folder = tmp_path / f"{name}_seed{r}"
            order = None if orders is None else orders[(name, r)]
            lm_eval_output(folder, {"quiz": t[:, r]}, model=f"org__{name}", order=order)
            args.append(f"{name}={folder}")
    return args


def test_lm_eval_logs_as_seeds_two_systems(tmp_path):
    """Two names: compare(a, b, runs="seeds") on the logs' tables; each log's rows in
    its own order."""
    tables = _tables(names=("base", "new"), runs=(3, 2), binary=True)
    rng = np.random.default_rng(4)
    orders = {(name, r): rng.permutation(40) for name, t in tables.items()
              for r in range(t.shape[1])}
    args = _lm_eval_runs(tmp_path, tables, orders)
    got = _json(*args, "--runs", "seeds", "--score", "acc")
    first = orders[("base", 0)]  # (the items in the first log's order)
    res = pairboot.compare(tables["base"][first], tables["new"][first], runs="seeds",
                           seed=SEED, n_resamples=RESAMPLES)
    _same(got, res)
    assert got["runs"]["runs_a"] == 3 and got["runs"]["runs_b"] == 2
    assert got["input"]["a"] == "base" and got["input"]["b"] == "new"


def test_lm_eval_logs_as_paired_seeds(tmp_path):
    tables = _tables(names=("base", "new"), runs=(3, 3), binary=True, seed=6)
    got = _json(*_lm_eval_runs(tmp_path, tables), "--runs", "seeds", "--paired-runs")
    res = pairboot.compare(tables["base"], tables["new"], runs="seeds", paired_runs=True,
                           seed=SEED, n_resamples=RESAMPLES)
    _same(got, res)
    assert got["runs"]["paired_runs"] is True


@pytest.mark.parametrize("kind", ["seeds", "samples"])
def test_lm_eval_logs_as_a_family(tmp_path, kind):
    """Three names: compare_many(..., runs=) on the logs' tables."""
    tables = _tables(runs=(2, 3, 2), binary=True, seed=7)
    args = _lm_eval_runs(tmp_path, tables)
    got = _json(*args[::-1], "--runs", kind, "--correction", "holm")  # (names: v2 first)
    ordered = {name: np.ascontiguousarray(tables[name][:, ::-1])
               for name in ("v2", "v1", "base")}
    res = pairboot.compare_many(ordered, runs=kind, correction="holm", seed=SEED,
                                n_resamples=RESAMPLES)
    _same(got, res)
    assert list(got["systems"]) == ["v2", "v1", "base"]


def test_lm_eval_logs_as_samples_with_an_item_missing(tmp_path):
    """--runs samples: a log may lack items (the item has fewer samples), as long as every
    system has a sample of every item."""
    tables = _tables(names=("base", "new"), runs=(2, 2), binary=True, seed=8)
    args = _lm_eval_runs(tmp_path, tables, {("base", 0): range(40), ("base", 1): range(35),
                                            ("new", 0): range(40), ("new", 1): range(40)})
    got = _json(*args, "--runs", "samples")
    base = tables["base"].copy()
    base[35:, 1] = np.nan
    res = pairboot.compare(base, tables["new"], runs="samples", seed=SEED,
                           n_resamples=RESAMPLES)
    _same(got, res)
    assert got["runs"]["kind"] == "samples"


def test_inspect_logs_epochs_as_samples(tmp_path):
    """Inspect logs with NAME=PATH and --runs samples: every epoch of every log is a
    sample; with --runs seeds each log is one run (its epochs averaged)."""
    rng = np.random.default_rng(9)
    letters = {(m, r): rng.choice(["C", "I", "P"], (30, 2), p=[p, 0.8 - p, 0.2]).tolist()
               for m, p in (("a", 0.4), ("b", 0.55)) for r in range(2)}
    args = []
    for (m, r), values in letters.items():
        suffix = ".eval" if r == 0 else ".json"
        args.append(f"{m}={inspect_log(tmp_path / f'{m}{r}{suffix}', f'model/{m}', values)}")
    number = np.vectorize({"C": 1.0, "I": 0.0, "P": 0.5}.get)
    epochs = {m: np.hstack([number(letters[(m, r)]) for r in range(2)]) for m in "ab"}
    got = _json(*args, "--runs", "samples", "--score", "match")
    res = pairboot.compare(epochs["a"], epochs["b"], runs="samples", seed=SEED,
                           n_resamples=RESAMPLES)
    _same(got, res)
    assert got["runs"]["runs_a"] == 4
    got = _json(*args, "--runs", "seeds")
    means = {m: np.stack([number(letters[(m, r)]).mean(axis=1) for r in range(2)], axis=1)
             for m in "ab"}
    res = pairboot.compare(means["a"], means["b"], runs="seeds", seed=SEED,
                           n_resamples=RESAMPLES)
    _same(got, res)


def test_plain_tables_as_runs(tmp_path):
    """Any format the readers take: CSVs with --from table."""
    tables = _tables(names=("base", "new", "v2"), runs=(2, 2, 2), seed=10)
    args = []
    for name, t in tables.items():
        for r in range(2):
            path = tmp_path / f"{name}{r}.csv"
            path.write_text("qid,score\n" + "".join(f"q{i},{float(t[i, r])!r}\n"
                                                    for i in range(40)))
            args.append(f"{name}={path}")
    got = _json(*args, "--from", "table", "--id", "qid", "--score", "score", "--runs",
                "seeds", "--baseline", "new", "--correction", "none")
    res = pairboot.compare_many(tables, runs="seeds", baseline="new", correction="none",
                                seed=SEED, n_resamples=RESAMPLES)
    _same(got, res)


def test_lm_eval_tasks_are_strata_with_seeds(tmp_path):
    """Two tasks in every log: the items of each task drawn within it (strata); the t
    interval equals compare(runs='seeds', strata=tasks) on the same tables (it does not
    depend on the items' order)."""
    quiz = _tables(names=("base", "new"), runs=(2, 2), binary=True, seed=11)
    trivia = _tables(names=("base", "new"), runs=(2, 2), binary=True, seed=12)
    args = []
    for name in ("base", "new"):
        for r in range(2):
            folder = tmp_path / f"{name}_seed{r}"
            lm_eval_output(folder, {"quiz": quiz[name][:, r], "trivia": trivia[name][:, r]},
                           model=f"org__{name}")
            args.append(f"{name}={folder}")
    got = _json(*args, "--runs", "seeds")
    tasks = ["quiz"] * 40 + ["trivia"] * 40
    res = pairboot.compare(*(np.vstack([quiz[k], trivia[k]]) for k in ("base", "new")),
                           runs="seeds", strata=tasks, seed=SEED, n_resamples=RESAMPLES)
    assert got["estimate"] == pytest.approx(res.estimate, rel=1e-12)
    for end in ("low", "high"):
        assert got["confidence_interval"][end] == pytest.approx(
            getattr(res.confidence_interval, end), rel=1e-10)
    assert [s["name"] for s in got["strata"]] == ["quiz", "trivia"]


def test_bad_named_logs(tmp_path):
    tables = _tables(names=("base", "new"), runs=(2, 2), binary=True)
    args = _lm_eval_runs(tmp_path, tables, {("base", 0): range(40), ("base", 1): range(40),
                                            ("new", 0): range(40), ("new", 1): range(37)})
    # a run lacking items: the log and how many
    assert_one_line_error(_error(*args, "--runs", "seeds"), "new_seed1", "lacks 3 of the 40")
    # a system with no sample of some items
    lone = [args[0], args[1], args[3]]
    assert_one_line_error(_error(*lone, "--runs", "samples"), "'new'", "no sample of 3")
    good = args[:3]
    assert_one_line_error(_error(*good), "NAME=PATH", "--runs")
    assert_one_line_error(_error(*good[:2], str(tmp_path / "new_seed0"), "--runs", "seeds"),
                          "new_seed0", "NAME=PATH")
    assert_one_line_error(_error(*good[:2], "--runs", "seeds"), "'base'", "two systems")
    assert_one_line_error(_error(*good, "--runs", "seeds", "--paired-runs"),
                          "--paired-runs", "'base' 2", "'new' 1")
    assert_one_line_error(_error(*good, "--runs", "samples", "--paired-runs"),
                          "--paired-runs is for --runs seeds")
    assert_one_line_error(_error(*good, "--runs", "seeds", "--run", "seed"), "--run")
    assert_one_line_error(_error(*good, "--runs", "seeds", "--names", "x,y"), "--names")
    assert_one_line_error(_error(*good, "--runs", "seeds", "--baseline", "zz"), "zz")
    assert_one_line_error(_error(*good, f"new={tmp_path / 'nowhere'}", "--runs", "seeds"),
                          "nowhere", "no such file")
    # without NAME=, harness logs refuse --runs seeds with a pointer to NAME=PATH
    assert_one_line_error(_error(tmp_path / "base_seed0", tmp_path / "new_seed0", "--runs",
                                 "seeds"), "NAME=PATH")


def test_what_reads_as_name_equals_path(tmp_path):
    """NAME=PATH only where it cannot be a path: an existing path with '=' stays a path,
    as does one whose part before '=' holds a separator."""
    folder = tmp_path / "lr=0.1"
    folder.mkdir()
    assert named_inputs([str(folder), "b.csv"]) is None
    assert named_inputs(["out/lr=0.1/a.csv", "b.csv"]) is None
    assert named_inputs(["a=x/1", "a=x/2", "b=y"]) == [("a", "x/1"), ("a", "x/2"),
                                                       ("b", "y")]

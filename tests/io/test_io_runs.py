"""``pairboot.io.runs_table`` and ``runs_per_system``: what ``--run COL`` does, in Python.

A long table (one row per item and run) becomes each system's items x runs table; a bad
row is refused with the command line's message (the library writes `` `runs='seeds'` ``
where the command line writes ``--runs seeds``); and ``pairboot.compare`` on the tables
gives the command's answer.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from helpers import run_in_process

import pairboot
import pairboot.io as pbio
from pairboot.cli.parser import cli_spelling
from pairboot.errors import InputError

pytestmark = pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")

A = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9], [1.0, 1.1, 1.2]])
B = A + 0.25
GROUP = ["d0", "d0", "d1", "d1"]
STRATUM = ["t0", "t0", "t1", "t1"]


def _frame(order=(2, 0, 3, 1), runs=(1, 0, 2)):
    """The long table of A and B: rows in the given item and run orders."""
    rows = [(f"q{i}", f"s{r}", GROUP[i], STRATUM[i], A[i, r], B[i, r])
            for r in runs for i in order]
    return pd.DataFrame(rows, columns=["id", "seed", "doc", "task", "a", "b"])


def test_one_table_equals_the_hand_built_tables():
    got = pbio.runs_table(_frame(), id="id", run="seed", score={"A": "a", "B": "b"},
                          group="doc", stratum="task")
    order, runs = [2, 0, 3, 1], [1, 0, 2]  # first appearance: items, then runs
    np.testing.assert_array_equal(got.values["A"], A[np.ix_(order, runs)])
    np.testing.assert_array_equal(got.values["B"], B[np.ix_(order, runs)])
    assert got.ids == ("q2", "q0", "q3", "q1")
    assert got.runs == {"A": ("s1", "s0", "s2"), "B": ("s1", "s0", "s2")}
    assert got.groups == tuple(GROUP[i] for i in order)
    assert got.strata == tuple(STRATUM[i] for i in order)
    assert (got.kind, got.notes) == ("seeds", ())
    # a list of columns names the systems by them; a Table and a dict read the same
    table = pbio.runs_table(dict(_frame().to_dict("list")), id="id", run="seed",
                            score=["a", "b"])
    assert list(table.values) == ["a", "b"]
    np.testing.assert_array_equal(table.values["a"], got.values["A"])


def test_statistics_columns_stack_into_a_third_axis():
    frame = _frame().assign(a_fp=lambda d: d.a * 2)
    got = pbio.runs_table(frame, id="id", run="seed", score={"A": ["a", "a_fp"]})
    assert got.values["A"].shape == (4, 3, 2)
    np.testing.assert_array_equal(got.values["A"][..., 1], 2 * got.values["A"][..., 0])


def test_missing_samples_are_nan():
    frame = _frame(order=(0, 1, 2, 3), runs=(0, 1, 2))
    frame = frame.drop(index=[5]).reset_index(drop=True)  # q1's row of run s1
    frame.loc[0, "b"] = np.nan  # q0's B score in run s0: an empty cell
    got = pbio.runs_table(frame, id="id", run="seed", score={"A": "a", "B": "b"},
                          kind="samples")
    want_a, want_b = A.copy(), B.copy()
    want_a[1, 1] = want_b[1, 1] = want_b[0, 0] = np.nan
    np.testing.assert_array_equal(got.values["A"], want_a)
    np.testing.assert_array_equal(got.values["B"], want_b)
    assert got.notes == ("`runs='samples'`: each system's score on an item is the mean of "
                         "its samples (2 to 3 per item and system), and the items' means "
                         "are compared",)
    with pytest.raises(InputError, match=r"DataFrame, row 1, column 'b': missing value"):
        pbio.runs_table(frame, id="id", run="seed", score=["a", "b"], kind="seeds")


def test_a_table_per_system():
    a = _frame(order=(0, 1, 2, 3), runs=(0, 1, 2))[["id", "seed", "doc", "a"]]
    b = _frame(order=(3, 2, 1, 0), runs=(2, 0, 1))[["id", "seed", "b"]]
    with pytest.raises(InputError, match=r"DataFrame 'B': no column 'a'"):
        pbio.runs_per_system({"A": a, "B": b}, id="id", run="seed", score="a")
    b = b.rename(columns={"b": "a"})  # every table's score column is the same
    got = pbio.runs_per_system({"A": a, "B": b}, id="id", run="seed", score="a",
                               group="doc")
    assert got.ids == ("q0", "q1", "q2", "q3") and got.groups == tuple(GROUP)
    np.testing.assert_array_equal(got.values["A"], A)
    np.testing.assert_array_equal(got.values["B"], B[:, [2, 0, 1]])  # its own run order
    assert got.runs["B"] == ("s2", "s0", "s1")
    paired = pbio.runs_per_system({"A": a, "B": b}, id="id", run="seed", score="a",
                                  paired_runs=True)
    np.testing.assert_array_equal(paired.values["B"], B)  # the first table's run order
    assert paired.runs["B"] == ("s0", "s1", "s2")
    with pytest.raises(InputError, match=r"`paired_runs` matches runs by label"):
        pbio.runs_per_system({"A": a, "B": b[b.seed != "s1"]}, id="id", run="seed",
                             score="a", paired_runs=True)
    with pytest.raises(InputError, match=r"DataFrame 'B', row 13: item 'q9' is not in "
                       "the first file"):
        pbio.runs_per_system({"A": a, "B": pd.concat([b, b.iloc[[0]].assign(id="q9")])},
                             id="id", run="seed", score="a")
    with pytest.raises(InputError, match=r"DataFrame 'B' scores 3 of the 4 items of "
                       "DataFrame 'A'"):
        pbio.runs_per_system({"A": a, "B": b[b.id != "q2"]}, id="id", run="seed",
                             score="a", kind="samples")


def _csv(path, frame):
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("case, words", [
    ("twice", "line 14: item 'q2', run 's1' appears twice"),
    ("hole", "item 'q1' has no score for run 's2' (1 cell(s) missing); with "
             "`runs='seeds'` every run scores every item"),
    ("text", "line 3, column 'b': 'high' is not a number"),
])
def test_bad_rows_are_refused_with_the_command_lines_message(tmp_path, case, words):
    frame = _frame()
    if case == "twice":
        frame = pd.concat([frame, frame.iloc[[0]]], ignore_index=True)
    elif case == "hole":
        frame = frame.iloc[:-1]
    else:
        frame = frame.astype({"b": object})
        frame.loc[1, "b"] = "high"
    path = _csv(tmp_path / f"{case}.csv", frame)
    with pytest.raises(InputError) as caught:
        pbio.runs_table(pbio.read_table(path), id="id", run="seed", score=["a", "b"])
    assert words in str(caught.value)
    assert str(caught.value).startswith(str(path))
    proc = run_in_process("compare", path, "--a", "a", "--b", "b", "--id", "id", "--run",
                          "seed", "--runs", "seeds", "--no-progress")
    assert proc.returncode == 2
    assert proc.stderr.decode() == f"error: {cli_spelling(str(caught.value))}\n"
    with pytest.raises(InputError, match=words.split(": ", 1)[-1].replace("(", r"\(")
                       .replace(")", r"\)")):  # the same refusal for the DataFrame
        pbio.runs_table(frame, id="id", run="seed", score=["a", "b"])


def test_arguments_are_checked():
    with pytest.raises(InputError, match="`kind` must be 'seeds' or 'samples'"):
        pbio.runs_table(_frame(), id="id", run="seed", score="a", kind="seed")
    with pytest.raises(InputError, match="not list"):
        pbio.runs_table([1, 2], id="id", run="seed", score="a")
    with pytest.raises(InputError, match="DataFrame: no column 'run'"):
        pbio.runs_table(_frame(), id="id", run="run", score="a")


def _rows(n=40, runs=3, seed=0):
    rng = np.random.default_rng(seed)
    item = rng.normal(0, 1, n)
    a = item[:, None] + rng.normal(0, 0.3, runs) + rng.normal(0, 1, (n, runs))
    b = item[:, None] + 0.3 + rng.normal(0, 0.3, runs) + rng.normal(0, 1, (n, runs))
    return pd.DataFrame([(f"q{i}", f"s{r}", f"d{i // 4}", round(a[i, r], 6),
                          round(b[i, r], 6)) for r in range(runs) for i in range(n)],
                        columns=["id", "seed", "doc", "a", "b"])


@pytest.mark.parametrize("kind, group", [("seeds", None), ("seeds", "doc"),
                                         ("samples", None)])
def test_compare_on_the_tables_equals_the_command(tmp_path, kind, group):
    frame = _rows()
    path = _csv(tmp_path / "runs.csv", frame)
    flags = [] if group is None else ["--group", group]
    proc = run_in_process("compare", path, "--a", "a", "--b", "b", "--id", "id", "--run",
                          "seed", "--runs", kind, *flags, "--seed", "5", "--resamples",
                          "1000", "--format", "json", "--no-progress")
    assert proc.returncode == 0, proc.stderr.decode()
    got = json.loads(proc.stdout)
    r = pbio.runs_table(frame, id="id", run="seed", score=["a", "b"], kind=kind,
                        group=group)
    res = pairboot.compare(r.values["a"], r.values["b"], runs=r.kind, groups=r.groups,
                           seed=5, n_resamples=1000)
    assert got["estimate"] == res.estimate
    assert got["confidence_interval"] == res.confidence_interval._asdict()
    assert got["p_value"] == res.p_value

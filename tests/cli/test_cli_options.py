"""Options that must never be taken silently: statistics by position, an option given
twice, a seed that changes the answer from run to run."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import assert_one_line_error, run_in_process

import pairboot
from pairboot.metrics import match_statistics

N = 120


def counts(rng, n=N, extra_tp=0):
    """Per-item tp, fp, fn counts of a tagger (B finds more true positives)."""
    tp = rng.integers(0, 4, n) + extra_tp * (rng.random(n) < 0.5)
    return np.column_stack([tp, rng.integers(0, 3, n), rng.integers(0, 2, n)])


def f1(stats):
    tp, fp, fn = stats.sum(axis=0)
    return 2 * tp / (2 * tp + fp + fn)


def write(path, header, rows):
    path.write_text(",".join(header) + "\n" + "".join(",".join(map(str, r)) + "\n"
                                                      for r in rows))
    return str(path)


@pytest.fixture
def shuffled_columns(tmp_path):
    """Two files whose count columns come in the order fn, fp, tp."""
    rng = np.random.default_rng(5)
    xa, xb = counts(rng), counts(rng, extra_tp=2)
    header = ["id", "fn", "fp", "tp"]
    fa = write(tmp_path / "a.csv", header, [(i, *x[::-1]) for i, x in enumerate(xa)])
    fb = write(tmp_path / "b.csv", header, [(i, *x[::-1]) for i, x in enumerate(xb)])
    return fa, fb, xa, xb


def run_json(*args):
    proc = run_in_process(*args, "--format", "json", "--resamples", "200")
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout)


# --- --stats: by name, or explicitly; never by position ---------------------------------


@pytest.mark.parametrize("spec", ["fn,fp,tp", "tp,fp,fn", "fp,tp,fn", "tp=tp,fn=fn,fp=fp"])
def test_stats_are_read_by_name_in_any_order(shuffled_columns, spec):
    # (--stats fn,fp,tp once read fn as tp: F1 0.28 instead of 0.78, and another verdict)
    fa, fb, xa, xb = shuffled_columns
    data = run_json("compare", fa, fb, "--id", "id", "--metric", "f1", "--stats", spec)
    assert data["score_a"]["estimate"] == pytest.approx(f1(xa), rel=1e-12)
    assert data["score_b"]["estimate"] == pytest.approx(f1(xb), rel=1e-12)


def test_stats_mapping_names_other_columns(tmp_path):
    rng = np.random.default_rng(6)
    xa, xb = counts(rng), counts(rng, extra_tp=1)
    header = ["id", "FalseNeg", "TruePos", "FalsePos"]
    order = [2, 0, 1]  # (fn, tp, fp) as the file holds them
    fa = write(tmp_path / "a.csv", header, [(i, *x[order]) for i, x in enumerate(xa)])
    fb = write(tmp_path / "b.csv", header, [(i, *x[order]) for i, x in enumerate(xb)])
    data = run_json("compare", fa, fb, "--id", "id", "--metric", "f1",
                    "--stats", "fn=FalseNeg,tp=TruePos,fp=FalsePos")
    assert data["estimate"] == pytest.approx(f1(xb) - f1(xa), rel=1e-12)
    assert "stats tp=TruePos,fp=FalsePos,fn=FalseNeg" in data["signature"]

    # the same columns as a plain list: the names do not say, so it is refused, showing
    # the mapping a reading by position would have used (exactly when no name says)
    err = assert_one_line_error(run_in_process(
        "compare", fa, fb, "--id", "id", "--metric", "f1", "--stats",
        "FalseNeg,TruePos,FalsePos"))
    assert "tp=FalseNeg,fp=TruePos,fn=FalsePos" in err


@pytest.mark.parametrize(("spec", "words"), [
    ("tp=tp,fp=tp,fn=fn", ["column 'tp' is given for two statistics (tp and fp)"]),
    ("fp,a,b", ["'a' and 'b' are not among them", "--stats tp=COLUMN,fp=fp,fn=COLUMN"]),
    ("tp,fp", ["reads 3 statistics (tp, fp, fn), got 2"]),
    ("tp,fp,fn,id", ["not 4", "leave out id"]),
    ("tp=tp,fp=fp", ["also needs fn"]),
    ("tp=tp,xx=fp,fn=fn", ["'xx' is not one of them"]),
    ("tp=tp,tp=fp,fn=fn", ["named twice"]),
    ("tp=,fp=fp,fn=fn", ["STAT=COLUMN"]),
])
def test_bad_stats_lists_are_one_line_errors(shuffled_columns, spec, words):
    fa, fb, *_ = shuffled_columns
    assert_one_line_error(run_in_process(
        "compare", fa, fb, "--id", "id", "--metric", "f1", "--stats", spec), "--stats", *words)


def test_precision_and_recall_need_only_their_columns(tmp_path):
    rng = np.random.default_rng(7)
    xa, xb = counts(rng), counts(rng, extra_tp=1)
    fa = write(tmp_path / "a.csv", ["id", "tp", "fp"], [(i, *x[:2]) for i, x in enumerate(xa)])
    fb = write(tmp_path / "b.csv", ["id", "tp", "fp"], [(i, *x[:2]) for i, x in enumerate(xb)])
    data = run_json("compare", fa, fb, "--id", "id", "--metric", "precision")
    tp, fp = xb[:, 0].sum(), xb[:, 1].sum()
    assert data["score_b"]["estimate"] == pytest.approx(tp / (tp + fp), rel=1e-12)
    # recall reads tp and fn: this file has no fn, and the error says which column
    assert_one_line_error(run_in_process("compare", fa, fb, "--id", "id", "--metric",
                                         "recall"), "no column 'fn'")


def test_a_dataframe_is_read_by_name_for_precision_and_recall():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(8)
    xa, xb = counts(rng), counts(rng, extra_tp=1)
    da = pd.DataFrame(xa[:, ::-1], columns=["fn", "fp", "tp"])
    db = pd.DataFrame(xb[:, ::-1], columns=["fn", "fp", "tp"])
    res = pairboot.compare(da, db, metric="recall", n_resamples=400, seed=0)
    tp, fn = xa[:, 0].sum(), xa[:, 2].sum()
    assert res.score_a.estimate == pytest.approx(tp / (tp + fn), rel=1e-12)
    with pytest.raises(ValueError, match="needs 2 per-item statistic"):
        pairboot.compare(xa, xb, metric="recall")  # a plain array: no names to go by


def test_match_statistics():
    assert match_statistics(("tp", "fp", "fn"), ["base_fn", "base_tp", "base_fp"]) == (1, 2, 0)
    assert match_statistics(("correct", "total"), ["TOTAL", "Correct"]) == (1, 0)
    # macro-F1: the names carry each statistic's kind, class by class
    stats = ("tp_1", "fp_1", "fn_1", "tp_2", "fp_2", "fn_2")
    names = ["tp_cat", "fp_cat", "fn_cat", "tp_dog", "fp_dog", "fn_dog"]
    assert match_statistics(stats, names) == (0, 1, 2, 3, 4, 5)
    assert match_statistics(stats, [names[1], names[0], *names[2:]]) is None
    # each class's three columns must be one class's (tp_cat, fp_cat, fn_dog is not)
    mixed = ["tp_cat", "fp_cat", "fn_dog", "tp_dog", "fp_dog", "fn_cat"]
    assert match_statistics(stats, mixed) is None
    bleu = ("sys_len", "ref_len", "correct_1", "correct_2", "total_1", "total_2")
    reversed_orders = ["sys_len", "ref_len", "correct_2g", "correct_1g", "total_1g", "total_2g"]
    assert match_statistics(bleu, reversed_orders) is None
    assert match_statistics(("tp", "fp", "fn"), ["tp_a", "tp_b", "fn"]) is None
    assert match_statistics(("score",), ["acc"]) == (0,)


# --- options given twice ------------------------------------------------------------------


@pytest.mark.parametrize("option", [
    ["--b", "new", "--b", "v2"],
    ["--seed", "1", "--seed", "1"],
    ["--output", "x.txt", "-o", "y.txt"],
    ["--resamples", "100", "--resamples", "200"],
    ["--metric", "mean", "--metric", "f1"],
    ["--fail-if", "worse", "--fail-if", "different"],
])
def test_an_option_given_twice_is_an_error_naming_it(tmp_path, option):
    runs = write(tmp_path / "runs.csv", ["id", "base", "new", "v2"],
                 [(i, i % 3, (i + 1) % 3, i % 2) for i in range(40)])
    args = ["compare", runs, "--a", "base", *option]
    if "--b" not in option:
        args += ["--b", "new"]
    err = assert_one_line_error(run_in_process(*args), "given twice")
    assert option[2] in err


@pytest.mark.parametrize("flags, words", [
    (["--exact", "--no-exact"], "--exact and --no-exact contradict each other"),
    (["--no-exact", "--exact"], "--no-exact and --exact contradict each other"),
    (["--exact", "--exact"], "--exact given twice"),
])
def test_contradictory_flags_are_refused(tmp_path, flags, words):
    runs = write(tmp_path / "runs.csv", ["base", "new"], [(i % 2, (i // 2) % 2) for i in range(8)])
    assert_one_line_error(run_in_process("compare", runs, "--a", "base", "--b", "new",
                                         "--test", "permutation", *flags), words)


def test_tasks_as_family_is_never_dropped_by_a_family_option(tmp_path):
    """--correction (which --tasks-as family takes) and --baseline made two files a
    family of systems, and --tasks-as family was silently dropped."""
    rows = [(f"q{i}", i % 2, ("x", "y", "z")[i % 3]) for i in range(60)]
    a = write(tmp_path / "a.csv", ["id", "score", "topic"], rows)
    b = write(tmp_path / "b.csv", ["id", "score", "topic"],
              [(q, (s + (i % 5 == 0)) % 2, t) for i, (q, s, t) in enumerate(rows)])
    base = ["compare", a, b, "--id", "id", "--stratum", "topic", "--tasks-as", "family",
            "--resamples", "100", "--seed", "1", "--format", "json"]
    for extra, correction in ((["--correction", "holm"], "holm"),
                              (["--baseline", "b"], "max-t")):
        proc = run_in_process(*base, *extra)
        assert proc.returncode == 0, proc.stderr.decode()
        out = json.loads(proc.stdout)
        assert out["strata_family"] == ["x", "y", "z"] and out["correction"] == correction
    c = write(tmp_path / "c.csv", ["id", "score", "topic"], rows)
    assert_one_line_error(run_in_process(*base[:3], c, *base[3:]), "--tasks-as family",
                          "3 systems")


def test_flags_may_repeat(tmp_path):
    runs = write(tmp_path / "runs.csv", ["base", "new"], [(i % 3, (i + 1) % 3) for i in range(40)])
    proc = run_in_process("compare", runs, "--a", "base", "--b", "new", "--no-progress",
                          "--no-progress", "--resamples", "100")
    assert proc.returncode == 0, proc.stderr


# --- the same inputs give the same output ----------------------------------------------


def test_without_a_seed_the_same_inputs_give_the_same_report(tmp_path):
    runs = write(tmp_path / "runs.csv", ["base", "new"],
                 [(((i * 37) % 100) / 100, ((i * 41) % 100) / 100) for i in range(60)])
    args = ("compare", runs, "--a", "base", "--b", "new", "--resamples", "300")
    first, second = run_in_process(*args), run_in_process(*args)
    assert first.returncode == 0 and first.stdout == second.stdout
    # the seed it used is reported, and passing it gives the same numbers
    data = json.loads(run_in_process(*args, "--format", "json").stdout)
    again = json.loads(run_in_process(*args, "--format", "json", "--seed",
                                      str(data["seed"])).stdout)
    assert again["confidence_interval"] == data["confidence_interval"]
    assert again["p_value"] == data["p_value"]
    # --seed random draws a fresh one
    seeds = {json.loads(run_in_process(*args, "--format", "json", "--seed", "random")
                        .stdout)["seed"] for _ in range(3)}
    assert len(seeds) == 3


@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")  # (few resamples)
def test_the_derived_seed_follows_the_data_and_the_options():
    rng = np.random.default_rng(9)
    a, b = rng.random(80), rng.random(80)
    res = pairboot.compare(a, b, n_resamples=400)
    assert res.seed == pairboot.compare(a.copy(), b.copy(), n_resamples=400).seed
    assert res.confidence_interval == pairboot.compare(a, b, n_resamples=400).confidence_interval
    others = {
        pairboot.compare(a, b, n_resamples=401).seed,
        pairboot.compare(a, b, n_resamples=400, paired=False).seed,
        pairboot.compare(a, b + 1e-9 * (np.arange(80) == 3), n_resamples=400).seed,
        pairboot.compare(a[::-1], b[::-1], n_resamples=400).seed,
        pairboot.compare(a, b, n_resamples=400, groups=np.arange(80) // 2).seed,
    }
    assert res.seed not in others and len(others) == 5
    # the level and the method read the same draws: the p-value does not depend on the
    # level, and methods can be compared on the same resamples
    level = pairboot.compare(a, b, n_resamples=400, confidence_level=0.9)
    basic = pairboot.compare(a, b, n_resamples=400, method="basic")
    assert level.seed == basic.seed == res.seed
    assert level.p_value == res.p_value
    np.testing.assert_array_equal(basic.bootstrap_distribution, res.bootstrap_distribution)
    fresh = {pairboot.compare(a, b, n_resamples=400, seed="random").seed for _ in range(3)}
    assert len(fresh) == 3


@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")
@pytest.mark.filterwarnings("ignore::pairboot.DegenerateDataWarning")
def test_the_derived_seed_of_constant_scores_and_its_recorded_values():
    # constant columns are dropped before the units are hashed: a 0-column array once
    # crashed the hash (memoryview.cast); the recorded seeds pin the hash's bytes
    res = pairboot.compare([1.0] * 4, [1.1] * 4, n_resamples=200)
    assert tuple(res.confidence_interval) == pytest.approx((0.1, 0.1))
    rng = np.random.default_rng(9)
    a, b = rng.random(80), rng.random(80)
    assert pairboot.compare(a, b, n_resamples=400).seed == 148364929
    assert pairboot.compare(a, b, n_resamples=400, groups=np.arange(80) // 2,
                            strata=(np.arange(80) // 2) % 2).seed == 1275758092


def test_group_weighting_groups_needs_groups():
    with pytest.raises(ValueError, match="needs `groups`"):
        pairboot.compare([0.1, 0.2, 0.3], [0.2, 0.2, 0.4], group_weighting="groups")


@pytest.mark.filterwarnings("ignore::pairboot.SmallSampleWarning")
def test_unequal_groups_warning_fits_the_weighting():
    rng = np.random.default_rng(10)
    groups = np.repeat(np.arange(40), [40] + [1] * 39)
    a, b = rng.random(len(groups)), rng.random(len(groups))
    by_items = pairboot.compare(a, b, groups=groups, n_resamples=400, seed=0)
    by_groups = pairboot.compare(a, b, groups=groups, group_weighting="groups",
                                 n_resamples=400, seed=0)
    unequal = [w for w in by_items.warnings if "very unequal" in w]
    assert unequal and "group_weighting='groups'" in unequal[0]
    unequal = [w for w in by_groups.warnings if "very unequal" in w]
    assert unequal and "group_weighting='items'" in unequal[0]
    assert "group_weighting='groups'" not in unequal[0]


def test_stratum_weights_with_semicolons_are_refused(tmp_path):
    runs = write(tmp_path / "runs.csv", ["base", "new", "s"],
                 [(i % 3, (i + 1) % 3, "ab"[i % 2]) for i in range(40)])
    # ('a=1;b=2' was read as one stratum named 'a=1;b' with weight 2)
    assert_one_line_error(run_in_process(
        "compare", runs, "--a", "base", "--b", "new", "--stratum", "s",
        "--stratum-weights", "a=1;b=2"), "cannot read 'a=1;b=2'", "commas")


def test_an_unknown_option_points_to_the_commands_help(tmp_path):
    runs = write(tmp_path / "runs.csv", ["base", "new"], [(i % 3, i % 2) for i in range(40)])
    err = assert_one_line_error(run_in_process("compare", runs, "--a", "base", "--b", "new",
                                               "--bogus"))
    assert "unrecognized arguments: --bogus (see 'pairboot compare --help')" in err

"""The note on skewed differences (issue 33, item 4): where the percentile interval covers
less than its level at this number of units, from the skewness of the estimate
(pairboot.core.skew; the table behind it in docs/small_samples.md).

Fixed data sets on either side of the rule, with its statistic checked against scipy's
sample skewness; compare(), its margin tests, groups, strata and families; the command
line.  The coverage that backs the advice is in tests/reference/test_coverage.py."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from helpers import run_in_process
from scipy import stats

import pairboot
from pairboot.core.pipeline import B_MINUS_A, resample
from pairboot.core.skew import SKEW_LIMIT, skewness
from pairboot.options import Arguments, Data

FAST = {"n_resamples": 1000, "seed": 3}
WORDS = "skewed"


def _notes(fn, *args, **kwargs):
    """The result of ``fn`` and the texts of its pairboot warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = fn(*args, **kwargs)
    texts = [str(w.message) for w in caught if issubclass(w.category, pairboot.PairbootWarning)]
    assert list(res.warnings) == texts  # (what is warned is what the result keeps)
    return res, texts


def _skew_notes(texts):
    return [t for t in texts if WORDS in t]


def lognormal(n=50, seed=2, sign=1.0):
    """A on a 2-8 scale, B = A + a lognormal gain (sigma 1, centred): B - A skews right
    (sign -1: left).  Seed 2 at n = 50: g1 / sqrt(n) = 0.444, well beyond the limit."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(2, 8, n)
    return a, a + sign * (rng.lognormal(0.0, 1.0, n) - math.exp(0.5))


def alpaca_like():
    """50 items scored as AlpacaEval's preferences in [0, 1] against a reference: both
    systems mostly lose (near 0), and B wins a few items outright (the per-item
    differences of alpaca-7b against gpt-3.5-turbo-1106 look so: 78% within 0.01 of 0,
    6% above 0.5).  g1 = 2.45."""
    a = np.r_[np.full(40, 0.02), np.full(10, 0.05)]
    b = a.copy()
    b[:6] = [0.62, 0.75, 0.84, 0.90, 0.97, 0.99]
    b[6] = 0.0
    b[10:14] += [0.01, -0.01, 0.02, 0.0]
    return a, b


def normal(n, seed):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.3, 0.7, n)
    return a, a + 0.02 + rng.normal(0, 0.05, n)


def _g1_over_root_n(a, b):
    d = np.asarray(b) - np.asarray(a)
    return float(stats.skew(d) / math.sqrt(len(d)))


# --- the statistic ---------------------------------------------------------------------------


@pytest.mark.parametrize("data", [lognormal(), alpaca_like(), normal(30, 0)])
def test_statistic_is_the_sample_skewness_over_root_n(data):
    """For a mean of items, 6 a is the sample skewness g1 (scipy's, biased) over sqrt(n)."""
    a, b = data
    run = resample((a, b), Arguments(n_resamples=100, seed=1, backend="numpy"), Data())
    got = skewness(run.core, B_MINUS_A, run.coef, run.combined)
    assert got == pytest.approx(_g1_over_root_n(a, b), rel=1e-9, abs=1e-12)


def test_statistic_of_group_means_is_their_skewness():
    """``group_weighting='groups'``: the group means' skewness over sqrt(G), exactly."""
    rng = np.random.default_rng(4)
    sizes = 1 + rng.poisson(4, 40)
    groups = np.repeat(np.arange(40), sizes)
    a = rng.random(len(groups))
    b = a + rng.lognormal(0, 1, 40)[groups] + rng.normal(0, 0.3, len(groups))
    run = resample((a, b), Arguments(group_weighting="groups", n_resamples=100, seed=1,
                                     backend="numpy"), Data(groups=groups))
    means = np.bincount(groups, weights=b - a) / np.bincount(groups)
    assert skewness(run.core, B_MINUS_A, run.coef, run.combined) == pytest.approx(
        stats.skew(means) / math.sqrt(40), rel=1e-9)


def test_a_familys_rows_take_the_difference_of_their_systems_jackknives():
    """Kept across a family's rows, the systems' jackknives give each contrast's 6a as
    its own jackknife does; the bound that spares the cubes is never below |6a|."""
    from pairboot.core.skew import influence, skew_bound
    a, b = lognormal()
    _, c = normal(50, 0)
    strata = ["x", "y"] * 25
    run = resample((a, b, c + 1.0), Arguments(n_resamples=100, seed=1, backend="numpy"),
                   Data(strata=strata, names=("a", "b", "c")))
    kept = {}
    for target in ((0, 1), (0, 2), (1, 2)):
        own = skewness(run.core, target, run.coef, run.combined)
        shared = skewness(run.core, target, run.coef, run.combined, kept)
        assert shared == pytest.approx(own, rel=1e-9)
        assert skew_bound(influence(run.core, target, run.coef, run.combined)) >= abs(own)
    assert len(kept) == 3  # (one jackknife per system)


# --- it fires where the percentile under-covers --------------------------------------------


@pytest.mark.parametrize("case", ["lognormal", "alpaca-like"])
def test_fires_on_the_issues_cases_at_50_items(case):
    """Lognormal differences and AlpacaEval-like ones at n = 50: the percentile interval
    covered 0.898 and 0.913 there (docs/small_samples.md).  Before this note compare()
    said nothing (the small-sample note stops at 30 items)."""
    a, b = lognormal() if case == "lognormal" else alpaca_like()
    assert _g1_over_root_n(a, b) > 1.5 * SKEW_LIMIT
    res, texts = _notes(pairboot.compare, a, b, **FAST)
    (note,) = _skew_notes(texts)
    assert "over 50 items" in note and "likely covers less than 95%" in note
    assert "`method='studentized'`" in note and "docs/small_samples.md" in note
    assert not any("only 50 items" in t for t in texts)  # (no small-sample note at 50)


@pytest.mark.parametrize("method", ["basic", "normal"])
def test_fires_for_the_other_plain_intervals(method):
    res, texts = _notes(pairboot.compare, *lognormal(), method=method, **FAST)
    (note,) = _skew_notes(texts)
    assert f"the {method} interval likely covers" in note


@pytest.mark.parametrize("method", ["studentized", "bca"])
def test_quiet_for_the_intervals_that_correct_for_skew(method):
    res, texts = _notes(pairboot.compare, *lognormal(), method=method, **FAST)
    assert _skew_notes(texts) == []


@pytest.mark.parametrize("hypothesis,sign", [("non-inferiority", 1.0), ("non-inferiority", -1.0),
                                             ("superiority", -1.0), ("equivalence", 1.0)])
def test_margin_tests_are_warned_on_either_side(hypothesis, sign):
    """A one-sided bound errs on the tail's side for a skewed population and on the other
    for a few extreme items of a heavy-tailed one (docs/small_samples.md): the note does
    not guess which, whichever bound the test reads."""
    a, b = lognormal(sign=sign)
    res, texts = _notes(pairboot.compare, a, b, hypothesis=hypothesis, margin=0.5, **FAST)
    assert len(_skew_notes(texts)) == 1


def test_groups_are_the_units():
    """Groups of items with a lognormal effect each: the note counts the groups."""
    rng = np.random.default_rng(2)
    groups = np.repeat(np.arange(50), 4)
    a = rng.uniform(2, 8, 200)
    b = a + rng.lognormal(0, 1, 50)[groups] + rng.normal(0, 0.2, 200)
    res, texts = _notes(pairboot.compare, a, b, groups=groups, **FAST)
    (note,) = _skew_notes(texts)
    assert "per-group differences" in note and "over 50 groups" in note


def test_strata_combine():
    a, b = lognormal(n=60, seed=3)
    res, texts = _notes(pairboot.compare, a, b, strata=["x", "y"] * 30, **FAST)
    assert len(_skew_notes(texts)) == 1


# --- it stays quiet on ordinary data -----------------------------------------------------------


@pytest.mark.parametrize("n,seed", [(30, 0), (30, 4), (50, 0), (200, 0)])
def test_quiet_on_near_symmetric_data(n, seed):
    """Normal differences: false alarms at 30 items were 1.3% (docs/small_samples.md);
    these data sets are not among them."""
    a, b = normal(n, seed)
    assert abs(_g1_over_root_n(a, b)) < 0.5 * SKEW_LIMIT
    res, texts = _notes(pairboot.compare, a, b, **FAST)
    assert _skew_notes(texts) == []


def test_quiet_on_zero_one_scores():
    """0/1 scores with lopsided disagreements (B right alone on 6 items, A on none):
    skewed differences, but the 0/1 notes speak there, as the coverage follows the items
    that differ (docs/small_samples.md)."""
    a = np.r_[np.zeros(6), np.ones(28), np.zeros(16)]
    b = np.r_[np.ones(6), np.ones(28), np.zeros(16)]
    assert _g1_over_root_n(a, b) > 1.5 * SKEW_LIMIT
    res, texts = _notes(pairboot.compare, a, b, **FAST)
    assert _skew_notes(texts) == []


def test_a_large_test_set_dilutes_the_skew():
    """The same lognormal law at 2,000 items: g1 / sqrt(n) well below the limit."""
    a, b = lognormal(n=2000, seed=5)
    assert abs(_g1_over_root_n(a, b)) < SKEW_LIMIT
    res, texts = _notes(pairboot.compare, a, b, **FAST)
    assert _skew_notes(texts) == []


# --- families ------------------------------------------------------------------------------


def _family():
    a, b = lognormal()
    _, c = normal(50, 0)
    return {"A": a, "B": b, "C": c + 3.0}


def test_a_family_names_its_skewed_rows():
    fam, texts = _notes(pairboot.compare_many, _family(), baseline="A", **FAST)
    (note,) = _skew_notes(texts)
    assert note.startswith("the differences of B - A are skewed (skewness 3.1)")
    assert "C - A" not in note
    # max-t's rows are symmetric whatever the method: the note says which correction helps
    assert "max-t interval likely covers" in note and "`correction='holm'`" in note


def test_a_family_with_holm_and_studentized_is_quiet():
    fam, texts = _notes(pairboot.compare_many, _family(), baseline="A", correction="holm",
                        method="studentized", **FAST)
    assert _skew_notes(texts) == []


def test_a_strata_family_counts_each_strata_units():
    a, b = lognormal(n=50)
    _, c = normal(50, 0)
    fam, texts = _notes(pairboot.compare_strata, np.r_[a, a], np.r_[b, c + 3.0],
                        strata=["x"] * 50 + ["y"] * 50, correction="holm", **FAST)
    (note,) = _skew_notes(texts)
    skew = stats.skew(b - a)  # (over the stratum's 50 items, not the design's 100)
    assert f"of B [x] - A [x] are skewed (skewness {skew:.2g})" in note and "[y]" not in note


# --- the command line ------------------------------------------------------------------------


def test_the_command_line_shows_it(tmp_path):
    a, b = lognormal()
    path = tmp_path / "scores.csv"
    path.write_text("a,b\n" + "".join(f"{x!r},{y!r}\n" for x, y in zip(a.tolist(), b.tolist())))
    cols = ["--a", "a", "--b", "b", "--resamples", "1000", "--seed", "3"]
    proc = run_in_process("compare", path, *cols)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode()
    assert "skewed (skewness" in out and "--method studentized" in out
    proc = run_in_process("compare", path, *cols, "--format", "json")
    data = json.loads(proc.stdout)
    assert any(WORDS in w for w in data["warnings"])
    assert any(WORDS in line and line.startswith("warning: ")
               for line in proc.stderr.decode().splitlines())

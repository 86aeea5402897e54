"""What a result warns about (issues 21 and 22): too few units for any interval, the
small-sample note under Poisson weights, scores on different scales, and a Monte Carlo
error too large for the interval's width, for compare(), the families, the runs and the
Poisson paths."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from helpers import run_in_process

import pairboot
from pairboot.partitioned import parts as partitioned
from pairboot.report import ReportContext
from pairboot.report.verdicts import decision


def _run(fn, *args, **kwargs):
    """``fn(*args, **kwargs)`` and the texts of the pairboot warnings it issued."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = fn(*args, **kwargs)
    return res, [str(w.message) for w in caught
                 if issubclass(w.category, pairboot.PairbootWarning)]


def _undefined(interval) -> bool:
    return all(math.isnan(v) for v in interval)


# --- too few units for any interval (issue 22) ----------------------------------------------


def test_one_item_has_no_interval():
    """One item: every resample is that item, so the interval was a point and the
    verdict 'better, p < 1/10,000'; now undefined, with one warning that says why."""
    res, texts = _run(pairboot.compare, [0.1], [0.3], seed=1)
    assert _undefined(res.confidence_interval) and math.isnan(res.p_value)
    assert res.verdict() == "undefined"
    assert _undefined(res.monte_carlo_error)
    assert _undefined(res.score_a.confidence_interval)
    assert res.estimate == pytest.approx(0.2)  # (the estimate itself is still given)
    assert len(texts) == 1 and "only 1 item:" in texts[0] and "undefined (NaN)" in texts[0]
    assert res.warnings == tuple(texts)


@pytest.mark.parametrize("case", ["one group", "single-item strata", "unpaired"])
def test_too_few_units_in_every_draw(case):
    """A group resampled whole is one unit; strata of one item each, or an unpaired
    system with one item, leave some system's value the same in every resample."""
    rng = np.random.default_rng(0)
    a, b = rng.random(6), rng.random(6) + 0.5
    kwargs = {"seed": 1, "n_resamples": 1000}
    if case == "one group":
        kwargs["groups"] = ["g"] * 6
        words = "only 1 group:"
    elif case == "single-item strata":
        kwargs["strata"] = list("abcdef")
        words = "every stratum has a single item"
    else:
        a, kwargs["paired"] = a[:1], False
        words = "A's sample has only 1 item"
    res, texts = _run(pairboot.compare, a, b, **kwargs)
    assert _undefined(res.confidence_interval) and math.isnan(res.p_value)
    assert any(words in t and "undefined" in t for t in texts), texts


def test_two_items_and_a_single_item_stratum_keep_their_intervals():
    """Two items still give a (rough) percentile interval; a stratum of one item among
    others adds nothing to the combined interval's width, but its own is undefined."""
    res, _ = _run(pairboot.compare, [0.1, 0.5], [0.3, 0.3], seed=1)
    assert res.confidence_interval.low < 0 < res.confidence_interval.high
    rng = np.random.default_rng(1)
    a = rng.random(41)
    res, texts = _run(pairboot.compare, a, a + rng.normal(0.1, 0.1, 41), seed=1,
                      strata=["x"] * 40 + ["y"], n_resamples=2000)
    assert not _undefined(res.confidence_interval)
    lone = {s.name: s for s in res.strata}["y"]
    assert _undefined(lone.confidence_interval) and math.isnan(lone.p_value)
    assert not _undefined({s.name: s for s in res.strata}["x"].confidence_interval)
    assert any("stratum 'y' has a single item" in t for t in texts)


def test_a_family_on_one_item_decides_nothing():
    res, texts = _run(pairboot.compare_many, {"a": [0.1], "b": [0.3], "c": [0.5]}, seed=1)
    for c in res.comparisons:
        assert _undefined(c.confidence_interval) and _undefined(c.marginal_interval)
        assert math.isnan(c.p_value) and math.isnan(c.p_adjusted) and not c.significant
    assert res.best_set == ("a", "b", "c")  # (nothing is surely better than anything)
    assert len(texts) == 1 and "only 1 item:" in texts[0]


@pytest.mark.parametrize("correction", ["max-t", "holm", "none"])
def test_a_stratum_of_one_item_in_a_strata_family_is_undefined(correction):
    """compare_strata: the stratum with one item had a zero standard error, an infinite
    t and a 'significant' row; now its row is undefined, the others are as they were."""
    a = [0.1, 0.2, 0.3, 0.4] * 10 + [0.5]
    b = [0.2, 0.2, 0.5, 0.4] * 10 + [0.9]
    strata = ["x"] * 40 + ["y"]
    res, texts = _run(pairboot.compare_strata, a, b, strata=strata, seed=1,
                      correction=correction, n_resamples=2000)
    x, y = res.comparisons
    assert _undefined(y.confidence_interval) and math.isnan(y.p_adjusted)
    assert not y.significant
    assert x.significant and not _undefined(x.confidence_interval)
    assert any("B [y]" in t and "single item" in t for t in texts), texts


def test_a_studentized_family_on_two_items_is_undefined_and_says_why():
    scores = {"a": [0.1, 0.5], "b": [0.3, 0.3], "c": [0.2, 0.9]}
    res, texts = _run(pairboot.compare_many, scores, seed=1, method="studentized",
                      correction="holm")
    assert all(_undefined(c.confidence_interval) and not c.significant
               for c in res.comparisons)
    assert any("intervals of b - a, c - a, c - b are undefined" in t
               and "standard error" in t for t in texts), texts


def test_the_gate_on_an_undefined_verdict():
    """--fail-if: every gate fails on an undefined verdict (the run could not check what
    it asks), and the decision says why."""
    res, _ = _run(pairboot.compare, [0.3], [0.1], seed=1)
    assert res.verdict() == "undefined"
    decisions = {gate: decision(res, ReportContext(fail_if=gate))
                 for gate in ("worse", "not-better", "different")}
    assert all(d["failed"] and d["reason"] == "undefined" for d in decisions.values())
    assert decision(res, ReportContext())["failed"] is False


def test_the_command_line_fails_a_gate_on_one_item_and_says_why(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("id,a,b\nq1,1,0\n")
    proc = run_in_process("compare", path, "--a", "a", "--b", "b", "--id", "id",
                          "--fail-if", "worse", "--seed", "1")
    out = proc.stdout.decode()
    assert proc.returncode == 1, proc.stderr.decode()
    assert "undefined" in out and "only 1 item" in out
    assert "the verdict is undefined, so the gate cannot pass" in proc.stderr.decode()


# --- one small-sample note under Poisson weights (issue 21, C) -------------------------------


def test_poisson_on_five_items_says_it_once():
    """Five items with Poisson weights: the small-sample note, the Poisson note, and
    the undefined resamples of A, of B and of the difference (those that drew no item)
    were five warnings; one says it all."""
    a, b = [0.1, 0.5, 0.3, 0.9, 0.4], [0.2, 0.6, 0.5, 0.8, 0.7]
    res, texts = _run(pairboot.compare, a, b, resampling="poisson", seed=1)
    assert len(texts) == 1, texts
    text = texts[0]
    for words in ("only 5 items", "Poisson", "verdict is undefined", "drew no item",
                  "resampling='classic'"):
        assert words in text, (words, text)
    n_empty = int(np.isnan(res.bootstrap_distribution).sum())
    assert n_empty > 0 and f"{n_empty} of the 10,000 resamples" in text


def test_the_command_line_spells_the_poisson_note(tmp_path):
    path = tmp_path / "five.csv"
    path.write_text("id,a,b\n" + "".join(f"q{i},{x},{y}\n" for i, (x, y) in enumerate(
        zip([0.1, 0.5, 0.3, 0.9, 0.4], [0.2, 0.6, 0.5, 0.8, 0.7]))))
    proc = run_in_process("compare", path, "--a", "a", "--b", "b", "--id", "id",
                          "--resampling", "poisson", "--seed", "1")
    out = " ".join(proc.stdout.decode().split())
    assert proc.returncode == 0, proc.stderr.decode()
    assert "prefer --resampling classic" in out
    assert out.count("only 5 items") == 1


def test_poisson_with_enough_items_keeps_its_own_note():
    rng = np.random.default_rng(2)
    a = rng.random(40)
    _, texts = _run(pairboot.compare, a, a + rng.normal(0.05, 0.1, 40), resampling="poisson",
                    seed=1, n_resamples=2000)
    assert len(texts) == 1 and texts[0].startswith("Poisson weights on 40 items")


# --- scores on different scales (issue 21, B) ------------------------------------------------

RNG = np.random.default_rng(3)
FRACTION = RNG.random(100)


@pytest.mark.parametrize("b, warned", [
    (FRACTION * 100 + RNG.normal(0, 2, 100), True),  # a fraction and a percentage
    (RNG.integers(1, 6, 100).astype(float), True),  # a fraction and a 1-5 rating
    (FRACTION + RNG.normal(0.05, 0.1, 100), False),  # one scale, a little beyond [0, 1]
    (np.zeros(100), False),  # a system that scored 0 everywhere
    (FRACTION + 10, False),  # a shift is no other scale
    (FRACTION * 0.01, False),  # a system that scored 0.5% against one of 50%: fractions
])
def test_scores_on_different_scales(b, warned):
    res, texts = _run(pairboot.compare, FRACTION, b, seed=1, n_resamples=1000)
    said = [t for t in texts if "very different scales" in t]
    assert bool(said) == warned, texts
    if warned:
        assert "A's in [" in said[0] and "B's in [" in said[0]


def test_a_system_that_scored_the_same_everywhere_has_no_scale():
    """0.0156 everywhere against 1.0156 everywhere (a hundred times apart in size), 1
    everywhere against ratings of 1 to 5 (a system that always got the lowest rating):
    a constant says nothing of its scale (hypothesis found both)."""
    for a, b in ((np.full(5, 0.015625), np.full(5, 1.015625)),
                 (np.ones(5), np.array([1.0, 5.0, 3.0, 1.0, 2.0]))):
        _, texts = _run(pairboot.compare, a, b, seed=1, n_resamples=500)
        assert not [t for t in texts if "scales" in t]


def test_large_log_likelihoods_are_one_scale():
    """Log-likelihoods of about -1500 on both sides: large numbers, a large difference,
    one scale."""
    a = -1500 + RNG.normal(0, 50, 100)
    _, texts = _run(pairboot.compare, a, a + 25 + RNG.normal(0, 5, 100), seed=1,
                    n_resamples=1000)
    assert not [t for t in texts if "scales" in t]


def test_different_scales_in_a_family_and_with_runs():
    scores = {"x": FRACTION, "y": FRACTION + 0.05, "z": FRACTION * 100}
    _, texts = _run(pairboot.compare_many, scores, baseline="x", seed=1, n_resamples=1000)
    assert any("very different scales" in t and "z's in [" in t for t in texts)
    runs = np.column_stack([FRACTION, FRACTION])
    for kind in ("seeds", "samples"):
        _, texts = _run(pairboot.compare, runs, runs * 100, runs=kind, seed=1,
                        n_resamples=500)
        assert any("very different scales" in t for t in texts), (kind, texts)
    _, texts = _run(pairboot.compare_many, {"x": runs, "z": runs * 100}, runs="seeds",
                    seed=1, n_resamples=500)
    assert any("very different scales" in t for t in texts)


def _apart_by_pairs(ranges):
    """Which systems lie on another scale than some other system's: every pair tried,
    from the rule's words (issue 21, B), independently of the sorted search."""
    def size(r):
        return max(abs(r[0]), abs(r[1]))

    def unit(r):
        return r[0] >= 0.0 and r[1] <= 1.0

    def wider(small, big):
        s_small, s_big = small[1] - small[0], big[1] - big[0]
        return ((size(big) >= 50.0 * size(small) and s_big >= 50.0 * s_small
                 and not unit(big))
                or (unit(small) and size(big) >= 5.0 and s_big >= 3.0 * s_small))

    def valid(r):
        return all(math.isfinite(v) for v in r) and r[0] != r[1]

    out = [False] * len(ranges)
    for i, p in enumerate(ranges):
        for j, q in enumerate(ranges):
            if i < j and valid(p) and valid(q) and (
                    wider(p, q) if size(p) <= size(q) else wider(q, p)):
                out[i] = out[j] = True
    return out


@pytest.mark.parametrize("case", range(60))
def test_scales_are_found_as_every_pair_would_find_them(case):
    """The sorted search (O(M log M): 10^5 systems took hours pair by pair) marks the
    same systems as trying every pair does, on ranges built to sit on the rules'
    edges: sizes and spreads exactly 50, 5 and 3 times apart, [0, 1], constants, NaN."""
    from pairboot.core.scales import _on_two_scales

    rng = np.random.default_rng(case)
    m = int(rng.integers(1, 40))
    base = rng.choice([0.01, 0.02, 0.1, 0.2, 1.0, 1.5, 5.0, 10.0, 50.0, 100.0, 250.0], m)
    lo = -base * rng.choice([0.0, 0.0, 0.5, 1.0], m)
    hi = base * rng.choice([1.0, 1.0, 0.0, 0.5], m)
    ranges = [(float(a), float(b)) for a, b in zip(lo, hi)]
    for k in rng.choice(m, size=min(m, 3), replace=False).tolist():
        ranges[k] = [(0.0, 1.0), (0.2, 0.2), (math.nan, 1.0), (3.0, 5.0), (-5.0, 0.0),
                     (0.0, 0.02), (10.0, 11.0)][int(rng.integers(0, 7))]
    assert _on_two_scales(ranges).tolist() == _apart_by_pairs(ranges)


def test_pooled_metrics_are_not_checked_for_scale():
    """F1's statistics are counts of any size: only a mean's scores have a scale."""
    rng = np.random.default_rng(4)
    a = rng.integers(0, 3, (80, 3)).astype(float)
    b = a * 40
    _, texts = _run(pairboot.compare, a, b, metric="f1", seed=1, n_resamples=500)
    assert not [t for t in texts if "scales" in t]


# --- the Monte Carlo error of the endpoints (issue 21, A) ------------------------------------


def test_too_few_resamples_for_the_width_is_said():
    rng = np.random.default_rng(5)
    a = rng.random(60)
    b = a + rng.normal(0.05, 0.1, 60)
    _, texts = _run(pairboot.compare, a, b, seed=1, n_resamples=64)
    assert any("Monte Carlo error of the endpoints (about ±" in t and "n_resamples" in t
               for t in texts), texts
    # well resolved: continuous scores, and 0/1 scores whose endpoints sit on a lattice
    _, texts = _run(pairboot.compare, a, b, seed=1)
    assert texts == []
    a01 = (rng.random(400) < 0.7).astype(float)
    b01 = np.where(rng.random(400) < 0.1, 1 - a01, a01)
    for seed in range(3):
        _, texts = _run(pairboot.compare, a01, b01, seed=seed)
        assert texts == []


def test_a_coarse_lattice_is_said_even_with_many_resamples():
    """100 items, one where only A is right and two where only B is: the endpoints sit
    on a lattice of steps of 0.01, and the upper one next to a jump of the bootstrap
    distribution, so that it moves by half a step over seeds (exactly: 0.47 of a step
    with 10,001 resamples, 8% of the width; tests/stats/test_intervals.py's reference)."""
    a, b = np.zeros(100), np.zeros(100)
    a[0], b[1:3] = 1.0, 1.0
    res, texts = _run(pairboot.compare, a, b, seed=1)
    low, high = res.confidence_interval
    assert max(res.monte_carlo_error) > 0.05 * (high - low)
    assert any("Monte Carlo error of the endpoints" in t for t in texts)


def test_every_comparison_of_a_family_has_its_monte_carlo_error():
    """A family of one is compare()'s answer, its Monte Carlo error included; a family
    with too few resamples for Bonferroni's level says which comparisons."""
    rng = np.random.default_rng(6)
    base = rng.random(90)
    scores = {"base": base, "v1": base + rng.normal(0.03, 0.1, 90),
              "v2": base + rng.normal(0.0, 0.1, 90)}
    one, _ = _run(pairboot.compare_many, {"base": base, "v1": scores["v1"]}, seed=3)
    ref, _ = _run(pairboot.compare, base, scores["v1"], seed=3)
    np.testing.assert_allclose(one.comparisons[0].monte_carlo_error, ref.monte_carlo_error,
                               rtol=1e-9)
    for correction in ("max-t", "holm", "none"):
        fam, _ = _run(pairboot.compare_many, scores, seed=3, correction=correction)
        for c in fam.comparisons:
            width = c.confidence_interval.high - c.confidence_interval.low
            assert 0 < max(c.monte_carlo_error) < 0.05 * width
        assert fam.to_dict()["comparisons"][0]["monte_carlo_error"]["low"] > 0
    fam, texts = _run(pairboot.compare_many, scores, seed=3, correction="bonferroni",
                      n_resamples=150)
    said = [t for t in texts if "Monte Carlo error of the endpoints" in t]
    assert said and "comparison" in said[0] and "v1 - base" in said[0], texts


def test_poisson_parts_use_the_same_estimator():
    rng = np.random.default_rng(7)
    a = rng.random(300)
    b = a + rng.normal(0.02, 0.1, 300)
    ids = [f"i{k}" for k in range(300)]
    ref, _ = _run(pairboot.compare, a, b, ids=ids, resampling="poisson", seed=5,
                  n_resamples=2000)
    parts = [partitioned.part_from_arrays({"a": a[s], "b": b[s]}, ids=ids[s], seed=5,
                                          n_resamples=2000)
             for s in (slice(0, 120), slice(120, 300))]
    got, _ = _run(partitioned.finish, partitioned.merge(parts))
    np.testing.assert_allclose(got.monte_carlo_error, ref.monte_carlo_error, rtol=1e-9)
    assert min(got.monte_carlo_error) > 0


@pytest.mark.slow
def test_max_t_monte_carlo_error_matches_the_spread_over_seeds():
    """Max-t's simultaneous ends are estimate -+ c se: their error (c's, a quantile of
    the largest roots, and se's) within 25% of the ends' spread over 120 seeds (3
    standard errors of a spread from 120 values are 19%)."""
    rng = np.random.default_rng(8)
    base = rng.random(300)
    scores = {"base": base, "v1": base + rng.normal(0.05, 0.05, 300),
              "v2": base + rng.normal(0.0, 0.05, 300), "v3": base + rng.normal(0.0, 0.08, 300)}
    ends, errors = [], []
    for s in range(120):
        fam, _ = _run(pairboot.compare_many, scores, baseline="base", seed=s, n_resamples=2000)
        ends.append([c.confidence_interval for c in fam.comparisons])
        errors.append([c.monte_carlo_error for c in fam.comparisons])
    spread = np.std(ends, axis=0, ddof=1)
    rms = np.sqrt(np.mean(np.square(errors), axis=0))
    np.testing.assert_allclose(rms, spread, rtol=0.25)


@pytest.mark.parametrize(("n", "level", "verdict"), [
    (2, 0.95, "undefined"), (3, 0.95, "undefined"), (5, 0.95, "undefined"),
    (6, 0.95, "better"), (7, 0.99, "undefined"), (8, 0.99, "better")])
def test_too_few_units_for_any_verdict_at_the_level(n, level, verdict):
    """n items that all favour B are so by chance with probability 2^(1 - n): below
    1 + log2(1 / (1 - level)) items no test could reject, so the interval (shown) decides
    nothing, and every --fail-if gate fails on it."""
    a = np.linspace(0.1, 0.5, n)
    res, texts = _run(pairboot.compare, a, a + np.linspace(0.1, 0.2, n), seed=1,
                      confidence_level=level)
    assert res.verdict() == verdict
    assert np.isfinite(res.confidence_interval).all()
    if verdict == "undefined":
        assert any("verdict is undefined" in t for t in texts)
        assert str(res).startswith(f"No verdict: {n} items are too few")
        assert decision(res, ReportContext(fail_if="worse"))["failed"]


def test_zero_one_scores_at_the_edge_and_few_differing_items_are_said():
    """A system right on every item has the point [1, 1] as its bootstrap interval, and
    few items that differ make the bootstrap's p of 0/1 scores smaller than McNemar's:
    both are said, with what holds (Wilson's interval, the exact test)."""
    from statsmodels.stats.proportion import proportion_confint

    a = np.r_[np.ones(45), np.zeros(5)]
    b = np.ones(50)
    with pytest.warns(pairboot.SmallSampleWarning) as said:
        res = pairboot.compare(a, b, seed=1, n_resamples=2000)
    texts = [str(w.message) for w in said]
    low = proportion_confint(50, 50, alpha=0.05, method="wilson")[0]
    assert any(t.startswith("B scored 1 on all 50 items") and f"[{low:.3f}, 1.000]" in t
               for t in texts)
    assert any("the systems differ on only 5 of the 50 items" in t for t in texts)
    assert tuple(res.score_b.confidence_interval) == (1.0, 1.0)
    # with McNemar's test asked for, or the score method, or 10 items that differ: quiet
    # on what is then covered
    with pytest.warns(pairboot.SmallSampleWarning) as said:
        pairboot.compare(a, b, seed=1, n_resamples=2000, test="mcnemar")
    assert not any("differ on only" in str(w.message) for w in said)
    pairboot.compare(a, b, seed=1, n_resamples=2000, method="score")
    c = np.r_[np.zeros(10), np.ones(90)]
    d = np.r_[np.ones(10), np.ones(90)]
    d[50:55] = 0  # (15 items differ, neither system at an edge)
    pairboot.compare(c, d, seed=1, n_resamples=2000)

"""pairboot.sequential: the stopping rule on arrays (where it stops, whatever the batch
size), its verdicts and margins, groups arriving whole, bad input, its reports, and the
planner's items to a decision (pairboot.planning.sequential) against a simulation."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import pairboot
from pairboot.errors import InputError
from pairboot.planning.sequential import items_to_decision
from pairboot.report import render
from pairboot.stats import sequences as cs


def pairs(rng, n, up=0.14, down=0.06):
    """0/1 scores where B alone is right on ``up`` of the items, A alone on ``down``."""
    u = rng.random(n)
    d = np.where(u < down, -1.0, np.where(u < down + up, 1.0, 0.0))
    a = np.where(d == 0, (rng.random(n) < 0.6), d < 0).astype(float)
    return a, a + d


def test_the_rule_stops_at_the_same_item_whatever_the_batches():
    a, b = pairs(np.random.default_rng(1), 3000)
    whole = pairboot.sequential(bounds=(0, 1), grid_size=500).update(a, b)
    s = pairboot.sequential(bounds=(0, 1), grid_size=500)
    for start in range(0, 3000, 37):
        r = s.update(a[start:start + 37], b[start:start + 37])
    assert whole.decided and whole.verdict == "better"
    assert (r.n_units, r.confidence_sequence, r.verdict) == (
        whole.n_units, whole.confidence_sequence, whole.verdict)
    assert whole.n_unused == 3000 - whole.n_units
    assert r.n_unused == 3000 - r.n_units
    # (and it is the first item at which the sequence on all the data excluded 0:)
    _, low, _ = cs.betting_update(cs.betting_start(0.05, grid_size=500, target=500),
                                  (b - a + 1) / 2)
    assert whole.n_units == int(np.argmax(2 * low - 1 > 0)) + 1


def test_budget_stops_undecided_and_the_width_ratio_is_reported():
    rng = np.random.default_rng(2)
    a = rng.random(400)
    b = np.clip(a + rng.normal(0, 0.1, 400), 0, 1)
    r = pairboot.sequential(bounds=(0, 1), budget=250, grid_size=400).update(a, b)
    assert (r.stopped_by, r.verdict, r.n_units, r.n_unused) == ("budget", "undecided", 250, 150)
    half_seq = (r.confidence_sequence.high - r.confidence_sequence.low) / 2
    half_fixed = (r.fixed_interval.high - r.fixed_interval.low) / 2
    assert r.width_ratio == pytest.approx(half_seq / half_fixed)
    assert r.width_ratio > 1


@pytest.mark.parametrize("hypothesis,margin,interval,expected", [
    ("difference", None, (0.01, 0.2), "better"),
    ("difference", None, (-0.2, -0.01), "worse"),
    ("difference", 0.05, (-0.04, 0.03), "futile"),
    ("difference", None, (-0.04, 0.03), "undecided"),
    ("non-inferiority", 0.05, (-0.04, 0.2), "non-inferior"),
    ("non-inferiority", 0.05, (-0.3, -0.06), "inferior"),
    ("superiority", 0.05, (0.06, 0.2), "better-by-margin"),
    ("superiority", 0.05, (-0.1, 0.04), "futile"),
    ("equivalence", 0.05, (-0.04, 0.04), "equivalent"),
    ("equivalence", 0.05, (0.06, 0.1), "different"),
])
def test_verdicts(hypothesis, margin, interval, expected):
    s = pairboot.sequential(hypothesis=hypothesis, margin=margin)
    assert s.verdicts([interval[0]], [interval[1]]) == [expected]
    flipped = pairboot.sequential(hypothesis=hypothesis, margin=margin, lower_is_better=True)
    assert flipped.verdicts([-interval[1]], [-interval[0]]) == [expected]


def test_a_margin_on_the_boundary_does_not_decide():
    s = pairboot.sequential(hypothesis="non-inferiority", margin=0.05)
    assert s.verdicts([-0.05], [0.1]) == ["undecided"]


def test_groups_arrive_whole_and_count_once():
    rng = np.random.default_rng(3)
    a, b = pairs(rng, 600)
    groups = np.repeat(np.arange(120), 5)
    s = pairboot.sequential(bounds=(0, 1), grid_size=400)
    r = s.update(a[:300], b[:300], groups=groups[:300])
    assert (r.unit, r.n_units, r.n_items) == ("groups", 60, 300)
    assert r.estimate == pytest.approx(np.mean((b[:300] - a[:300]).reshape(60, 5).mean(axis=1)))
    with pytest.raises(InputError, match="earlier update") as info:
        s.update(a[295:305], b[295:305], groups=groups[295:305])
    assert info.value.param == "groups"
    with pytest.raises(InputError, match="every update or in none"):
        s.update(a[300:305], b[300:305])


@pytest.mark.parametrize("missing", [None, math.nan])
def test_a_missing_group_label_is_refused(missing):
    """It was a group of its own (None), or one group per NaN; compare refuses it."""
    s = pairboot.sequential()
    with pytest.raises(InputError, match="no label for item 1") as info:
        s.update([0.0, 1.0, 1.0], [1.0, 1.0, 0.0], groups=["d1", missing, "d2"])
    assert info.value.param == "groups"
    assert s.update([0.0], [1.0], groups=["d1"]).n_units == 1  # (nothing was kept)


def test_bad_input_is_one_error_naming_the_argument():
    s = pairboot.sequential(bounds=(0, 1))
    with pytest.raises(InputError, match="outside the declared `bounds`") as info:
        s.update([0, 1], [0.5, 1.5])
    assert info.value.param == "b"
    with pytest.raises(InputError) as info:
        s.update([0, 1], [1])
    assert info.value.param == "b"
    s.update([0, 1], [1, 1], ids=["x", "y"])
    with pytest.raises(InputError, match="repeats the id 'y'"):
        s.update([0], [1], ids=["y"])
    with pytest.raises(InputError, match="needs a `margin`"):
        pairboot.sequential(hypothesis="superiority")
    with pytest.raises(InputError, match="needs the scores' `bounds`"):
        pairboot.sequential(sequence="betting")
    with pytest.raises(InputError) as info:
        pairboot.sequential(budget=0)
    assert info.value.param == "budget"
    with pytest.raises(InputError, match="missing or infinite"):
        pairboot.sequential().update([1.0, float("nan")], [1.0, 2.0])


def test_the_asymptotic_sequence_waits_for_its_minimum():
    # (two equal differences: a standard deviation of 0, a sequence of one point)
    r = pairboot.sequential().update([0, 0, 0], [1, 1, 1])
    assert not r.decided and r.n_units == 3
    r = pairboot.sequential(min_units=0).update([0, 0, 0], [1, 1, 1])
    assert r.decided and r.n_units == 2


def test_reports():
    a, b = pairs(np.random.default_rng(4), 2000)
    r = pairboot.sequential(bounds=(0, 1), grid_size=400).update(a, b)
    text = str(r)
    assert "Decided after" in text and "times as wide" in text and "pre-registered" in text
    assert "order independent of their outcomes" in text
    assert "times as wide" in render(r, "markdown")
    data = json.loads(render(r, "json"))
    assert data["verdict"] == "better" and data["n_units"] == r.n_units
    assert data["fixed_interval"]["low"] == pytest.approx(r.fixed_interval.low)
    latex = render(r, "latex")
    assert latex.startswith("% pairboot ") and r"\caption{Decided after" in latex
    assert "95\\% confidence sequence & $+" in latex and "times as wide" in latex
    assert latex.count(r"\begin{tabular}") == 1 and r"Waudby-Smith \& Ramdas" in latex
    github = render(r, "github")
    assert github.startswith("### pairboot watch: B is better than A after ")
    assert github.endswith(render(r, "markdown"))


def independent_stopping_sizes(delta, sd, n, reps, seed):
    """The asymptotic rule's stopping size, computed from the closed form on whole
    streams (not through the object): the first t >= 30 whose sequence excludes 0."""
    rng = np.random.default_rng(seed)
    rho2 = cs.rho2_for(n, 0.05)
    t = np.arange(1, n + 1)
    out = []
    for _ in range(reps):
        d = rng.normal(delta, sd, n)
        mean = np.cumsum(d) / t
        sdev = np.sqrt(np.maximum(np.cumsum(d * d) - t * mean ** 2, 0) / np.maximum(t - 1, 1))
        with np.errstate(divide="ignore", invalid="ignore"):
            r = sdev * np.sqrt(2 * (t * rho2 + 1) / (t * t * rho2)
                               * np.log(np.sqrt(t * rho2 + 1) / 0.05))
        hit = ((mean - r > 0) | (mean + r < 0)) & (t >= 30)
        out.append(int(np.argmax(hit)) + 1 if hit.any() else n)
    return np.array(out)


def test_planner_expected_items_within_monte_carlo_error():
    plan = items_to_decision(0.2, sd=1.0, max_items=3000, n_simulations=300, seed=5,
                             n_target=3000)
    check = independent_stopping_sizes(0.2, 1.0, 3000, 300, seed=99)
    se = math.hypot(plan.standard_error, check.std(ddof=1) / math.sqrt(check.size))
    assert abs(plan.mean_items - check.mean()) < 4 * se
    assert plan.quantiles[0.1] <= plan.quantiles[0.5] <= plan.quantiles[0.9]
    assert plan.verdicts.get("better", 0) > 0.9


def test_planner_on_01_scores_is_seeded_and_decides():
    one = items_to_decision(0.1, discordant=0.2, max_items=2000, n_simulations=20, seed=1,
                            grid_size=400)
    two = items_to_decision(0.1, discordant=0.2, max_items=2000, n_simulations=20, seed=1,
                            grid_size=400)
    np.testing.assert_array_equal(one.items, two.items)
    assert one.verdicts.get("better", 0) >= 0.9
    with pytest.raises(InputError):
        items_to_decision(0.3, discordant=0.2)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["01", "bounded-groups", "heavy"])
def test_the_rules_error_rate_reading_after_every_item(kind):
    """The rule itself (the object, its grid and its chunks), fed null streams of 10,000
    units: it declares a difference on at most alpha of them, within Monte Carlo error."""
    rng = np.random.default_rng(12)
    reps, n = 200, 10_000
    wrong = 0
    for _ in range(reps):
        if kind == "01":
            u = rng.random(n)
            a = (u < 0.1).astype(float)
            b = ((u >= 0.1) & (u < 0.2)).astype(float)
            s, groups = pairboot.sequential(bounds=(0, 1), grid_size=1000), None
        elif kind == "bounded-groups":
            shared = np.repeat(rng.random(n // 4), 4)
            a = np.clip(shared + rng.normal(0, 0.1, n), 0, 1)
            b = np.clip(shared + rng.normal(0, 0.1, n), 0, 1)
            s, groups = pairboot.sequential(bounds=(0, 1), grid_size=1000), np.arange(n) // 4
        else:
            a = np.zeros(n)
            b = rng.standard_t(3, n)
            s, groups = pairboot.sequential(), None
        wrong += s.update(a, b, groups=groups).decided
    assert wrong / reps <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / reps)


def test_a_ratio_of_sums_by_the_delta_method():
    rng = np.random.default_rng(13)
    den = rng.poisson(4, (3000, 2)) + 1
    num = np.column_stack([rng.binomial(den[:, 0], 0.30), rng.binomial(den[:, 1], 0.36)])
    a, b = np.column_stack([num[:, 0], den[:, 0]]), np.column_stack([num[:, 1], den[:, 1]])
    r = pairboot.sequential(metric="ratio").update(a, b)
    assert r.decided and r.verdict == "better" and r.metric == "ratio"
    k = r.n_units
    est = num[:k, 1].sum() / den[:k, 1].sum() - num[:k, 0].sum() / den[:k, 0].sum()
    assert r.estimate == pytest.approx(est)
    assert r.confidence_sequence.low > 0 and "delta method" in str(r)
    with pytest.raises(InputError, match="two columns"):
        pairboot.sequential(metric="ratio").update([1, 2], [1, 2])
    with pytest.raises(InputError, match="asymptotic sequence only"):
        pairboot.sequential(metric="ratio", bounds=(0, 1))
    with pytest.raises(InputError, match="unknown metric 'f2'"):
        pairboot.sequential(metric="f2")


@pytest.mark.parametrize("bounds", [None, (-10, 10)])
def test_the_moments_are_merged_once_per_chunk(monkeypatch, bounds):
    """The mean's moments of the units used are merged once per chunk read (256, 512,
    then the rest), shared by the asymptotic sequence and the result; the answers are
    pinned unchanged in test_sequential_pinned.py."""
    calls = []
    merge = cs.moments_update
    monkeypatch.setattr(cs, "moments_update", lambda *a: calls.append(1) or merge(*a))
    x = np.random.default_rng(14).normal(0, 1, 1000)
    pairboot.sequential(bounds=bounds, grid_size=50).update(np.zeros(1000), x)
    assert len(calls) == 3

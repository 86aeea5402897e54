"""pairboot.power(..., simulate=True): the planned size checked by the simulation of
pairboot.planning.simulation, wired into the plan and its reports."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import pairboot
from pairboot.errors import InputError
from pairboot.planning.simulated_data import difference_shift, read_pilot
from pairboot.report import render_power

_rng = np.random.default_rng(0)
A01 = (_rng.random(400) < 0.7).astype(float)
B01 = np.where(_rng.random(400) < 0.85, A01, 1 - A01)


@pytest.mark.parametrize("delta", [0.03, -0.02, 0.1])
def test_the_flips_keep_the_pilot_s_discordant_share(delta):
    """Connor's size assumes the discordant share of the pilot; the simulated tables
    keep it, and their B - A is delta (the expected cells, exactly)."""
    shift = difference_shift(read_pilot(A01, B01), delta)
    cells = shift.cells  # (both wrong, only B right, only A right, both right)
    assert cells[1] + cells[2] == pytest.approx(np.mean(A01 != B01), abs=1e-12)
    assert cells[1] - cells[2] == pytest.approx(delta, abs=1e-12)
    assert cells[2] + cells[3] == pytest.approx(A01.mean(), abs=1e-12)  # (A unchanged)


@pytest.mark.slow
def test_the_simulated_power_of_a_0_1_plan_is_its_power():
    res = pairboot.power(A01, B01, delta=0.03, power=0.8, simulate=True,
                         n_simulations=1000, seed=1)
    sim = res.simulation
    assert sim.n_items == res.n_items and sim.delta == res.delta
    # 3 Monte Carlo SEs, and 2 points for the percentile interval against the z test
    assert abs(sim.power - 0.8) <= 3 * math.sqrt(0.8 * 0.2 / 1000) + 0.02


def test_a_non_inferiority_size_at_delta_0_is_the_one_sided_z_test():
    # Connor's Wald form with the margin: a one-sample z test of effect margin / sqrt(psi)
    from statsmodels.stats.power import NormalIndPower  # noqa: PLC0415

    psi = float(np.mean(A01 != B01))
    res = pairboot.power(A01, B01, delta=0.0, hypothesis="non-inferiority", margin=0.05,
                         power=0.8)
    ref = NormalIndPower().solve_power(effect_size=0.05 / math.sqrt(psi), alpha=0.05,
                                       power=0.8, ratio=0, alternative="larger")
    assert res.n_items == math.ceil(ref)


def test_a_non_inferiority_plan_at_delta_0_is_simulated():
    # (refused before: "use delta != 0", while delta = 0 is the usual plan)
    res = pairboot.power(A01, B01, delta=0.0, hypothesis="non-inferiority", margin=0.05,
                         power=0.8, simulate=True, n_simulations=20, seed=1)
    assert res.simulation.delta == 0.0 and res.simulation.n_items == res.n_items
    for hypothesis, margin in (("difference", None), ("superiority", 0.05)):
        with pytest.raises(InputError, match="at most the test's level"):
            pairboot.planning.simulate_power(A01, B01, n_items=100, delta=0.0,
                                             hypothesis=hypothesis, margin=margin)


@pytest.mark.slow
def test_the_simulated_power_of_a_non_inferiority_plan_at_delta_0():
    rng = np.random.default_rng(1)
    a = (rng.random(4000) < 0.7).astype(float)
    b = np.where(rng.random(4000) < 0.2, 1 - a, a)
    res = pairboot.power(a, b, delta=0.0, hypothesis="non-inferiority", margin=0.03,
                         power=0.8, simulate=True, n_simulations=1000, seed=1)
    # the bootstrap's variance at delta = 0 is the Wald form's: 3 Monte Carlo errors,
    # and 1 point for the percentile interval against the z test
    assert abs(res.simulation.power - 0.8) <= 3 * math.sqrt(0.8 * 0.2 / 1000) + 0.01


def test_the_reports_carry_the_simulation():
    res = pairboot.power(A01, B01, delta=0.05, power=0.8, simulate=True, n_simulations=50,
                         seed=3)
    assert 0.0 <= res.simulation.power <= 1.0 and res.simulation.seed == 3
    text = render_power(res, "text")
    assert "Checked by simulation: " in text and "50 simulated evaluations" in text
    assert "Checked by simulation: " in render_power(res, "markdown")
    data = json.loads(render_power(res, "json"))
    assert data["simulation"]["power"] == res.simulation.power
    assert data["simulation"]["n_simulations"] == 50


def test_what_cannot_be_simulated_is_refused():
    with pytest.raises(InputError) as info:
        pairboot.power(sd=0.3, delta=0.05, power=0.8, simulate=True)
    assert info.value.param == "simulate" and "give `a` and `b`" in str(info.value)
    scores = {"a": A01, "b": B01, "c": 1 - A01}
    with pytest.raises(InputError, match="a family's plan is not simulated"):
        pairboot.power(scores=scores, delta=0.05, power=0.8, simulate=True)


def test_no_plan_has_fewer_units_than_a_verdict_needs():
    """compare() decides nothing below 6 units at 95% two-sided (5 one-sided): a huge
    difference still needs them."""
    assert pairboot.power(sd=1.0, delta=3.0, power=0.8).n_items == 6
    assert pairboot.power(sd=1.0, delta=3.0, power=0.8, alternative="greater").n_items == 5


@pytest.mark.slow
@pytest.mark.parametrize("item_sd", [0.0, 0.3])
def test_a_seeds_plan_simulates_at_its_power(item_sd):
    """A 3-seed pilot's items carry their residuals' mean (variance s_e^2 / 3): drawn
    again with new residuals, they must not count it twice (simulated_data.deflated),
    or the simulated power falls far below the plan (0.44 against 0.80 before)."""
    rng = np.random.default_rng(5)
    n, r = 200, 3
    item = rng.normal(0, 1, (n, 1))
    a = item + rng.normal(0, 0.3, (1, r)) + rng.normal(0, 0.5, (n, r))
    b = (item + rng.normal(0, item_sd, (n, 1)) + rng.normal(0, 0.3, (1, r))
         + rng.normal(0, 0.5, (n, r)))
    res = pairboot.power(a, b, runs="seeds", delta=0.4, power=0.8, n_runs=10,
                         simulate=True, n_simulations=400, seed=1)
    assert res.n_items >= 6
    # 3 Monte Carlo SEs and 4 points for the t interval's small-sample slack
    assert abs(res.simulation.power - 0.8) <= 3 * math.sqrt(0.8 * 0.2 / 400) + 0.04


def test_a_seeds_simulation_draws_no_resamples_its_verdicts_do_not_read(monkeypatch):
    """With seeds compare()'s verdict is the t interval on the two-way variance: the
    simulation drew 2,000 item resamples per evaluation that nothing read (70% of its
    time); it draws one, and each verdict and interval is that of a compare() with
    2,000 on the same data."""
    import dataclasses

    from pairboot.planning import simulation

    real = simulation.compare_two
    seen = []

    def checked(sa, sb, args, data):
        res = real(sa, sb, args, data)
        full = real(sa, sb, dataclasses.replace(args, n_resamples=2000), data)
        seen.append(args.n_resamples)
        assert res.verdict() == full.verdict()
        assert res.confidence_interval == full.confidence_interval
        assert res.p_value == full.p_value
        return res

    monkeypatch.setattr(simulation, "compare_two", checked)
    rng = np.random.default_rng(5)
    a = rng.normal(0, 1, (40, 1)) + rng.normal(0, 0.5, (40, 3))
    b = a + 0.1 + rng.normal(0, 0.5, (40, 3))
    res = pairboot.power(a, b, runs="seeds", delta=0.3, n_items=40, n_runs=3,
                         simulate=True, n_simulations=6, seed=1)
    assert seen == [1] * 6
    assert 0 < res.simulation.power < 1  # (both verdicts were met)


@pytest.mark.slow
def test_noise_the_systems_share_in_a_run_cancels_in_the_simulation():
    """An item's noise that A and B share in a run (one seed's data order) cancels in B -
    A: the simulation draws the same pilot run's residuals for both, as the planner's
    variance of the difference assumes (drawn apart, the plan simulated at 8%)."""
    rng = np.random.default_rng(7)
    n, r = 300, 3
    item, shared = rng.normal(0, 1, (n, 1)), rng.normal(0, 1.0, (n, r))
    a = item + shared + rng.normal(0, 0.3, (1, r)) + rng.normal(0, 0.3, (n, r))
    b = (item + shared + rng.normal(0, 0.3, (1, r)) + rng.normal(0, 0.3, (n, r))
         + rng.normal(0, 0.2, (n, 1)))
    res = pairboot.power(a, b, runs="seeds", delta=0.25, power=0.8, n_runs=20,
                         simulate=True, n_simulations=300, seed=1)
    assert res.simulation.power >= 0.8 - 3 * math.sqrt(0.8 * 0.2 / 300) - 0.04


# --- honest Monte Carlo errors, and sizes refused up front (issue 33) -------------------


def test_a_small_simulation_reports_an_interval_not_a_zero_error():
    # one simulation rejecting (or not) gave "Monte Carlo error 0.0%"
    from statsmodels.stats.proportion import proportion_confint  # noqa: PLC0415

    res = pairboot.power(A01, B01, delta=0.05, power=0.8, simulate=True, n_simulations=1,
                         seed=1)
    sim = res.simulation
    k = round(sim.power)
    assert sim.rough and sim.monte_carlo_error == 0.0
    assert sim.monte_carlo_interval == pytest.approx(
        proportion_confint(k, 1, alpha=0.05, method="wilson"), abs=1e-12)
    text = render_power(res, "text")
    assert "95% Monte Carlo interval" in text and "Monte Carlo error 0.0%" not in text
    assert "in 1 simulated evaluation of" in text  # (not "1 simulated evaluations")
    assert json.loads(render_power(res, "json"))["simulation"]["monte_carlo_interval"] == \
        list(sim.monte_carlo_interval)


def test_enough_rejections_report_the_standard_error():
    res = pairboot.power(A01, B01, delta=0.05, power=0.8, simulate=True, n_simulations=50,
                         seed=3)
    sim = res.simulation
    k = round(sim.power * 50)
    assert sim.rough == (min(k, 50 - k) < 10)
    words = "95% Monte Carlo interval" if sim.rough else "Monte Carlo error"
    assert words in render_power(res, "text")


def started(done: int):
    """A progress callback: called, a simulation has run (it must not have)."""
    raise AssertionError(f"{done} simulation(s) were run")


def test_a_huge_simulation_is_refused_before_it_starts():
    with pytest.raises(InputError) as info:  # (over the million allowed; 0/1 tables:
        pairboot.power(A01, B01, delta=0.05, power=0.8, simulate=True,  # 2,000 x 50 each)
                       n_simulations=10**9, seed=1, progress=started)
    assert info.value.param == "n_simulations" and "12 days" in str(info.value)


def test_too_much_work_is_refused_before_it_starts():
    from pairboot.planning.simulated_data import PlannedSize  # noqa: PLC0415
    from pairboot.planning.simulation import (  # noqa: PLC0415
        PER_EVALUATION,
        WORK_MAX,
        simulation_work,
    )

    size = PlannedSize(10_000, None, None, (10_000,))
    each = 2000 * 10_000 + PER_EVALUATION  # (continuous scores: compare() on each)
    assert simulation_work(1000, size, 2000, None, False) == 1000 * each
    assert 49_751 * each <= WORK_MAX < 49_752 * each
    rng = np.random.default_rng(2)
    a = rng.normal(0, 1, 300)
    b = a + rng.normal(0.1, 1, 300)
    with pytest.raises(InputError, match="item-resamples") as info:
        pairboot.planning.simulate_power(a, b, n_items=10_000, delta=0.1,
                                         n_simulations=49_752, progress=started)
    assert "hours" in str(info.value)

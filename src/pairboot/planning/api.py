"""pairboot.power(): before the evaluation, how many items, groups or seeds it takes."""

from __future__ import annotations

import dataclasses
import math
import numbers
import warnings

import numpy as np

from pairboot.core.family import family_systems, family_targets
from pairboot.errors import InputError
from pairboot.metrics import Metric, trials_metric
from pairboot.options import Arguments, Data, check_options
from pairboot.planning.family import FamilyPlanner
from pairboot.planning.known import from_parameters
from pairboot.planning.mcnemar import exact_offer, exact_setup
from pairboot.planning.model import (
    NEVER,
    Setup,
    Test,
    TModel,
    mde_for,
    power_of,
    runs_for,
    size_for,
)
from pairboot.planning.pilot import (
    check_spread,
    contrast_covariance,
    from_pilot,
    pilot_design,
)
from pairboot.planning.simulation import SIMULATED_RESAMPLES, simulated_power
from pairboot.planning.trials_plan import TRIALS_PARAMETERS, trials_setup, with_grid
from pairboot.planning.uncertainty import pilot_notes, pilot_range, span_words
from pairboot.results.power import FamilyPlan, PowerResult, StratumPlan
from pairboot.stats.pvalues import units_for

__all__ = ["detectable_difference", "power"]

PLAN_CORRECTIONS = ("max-t", "bonferroni")
"""The corrections a family is planned under."""

ONE_RUN = ("`n_runs` is 1: with one run per system the run-to-run variation cannot be "
           "estimated from the evaluation, so compare(runs='seeds') gives the items' "
           "interval, which leaves it out (no test at the stated level exists); plan 2 "
           "runs or more (leave `n_runs` out to solve for it)")
"""The refusal of one run per system when the runs vary."""

_PARAMETERS = ("sd", "sd_a", "sd_b", "correlation", "accuracy_a", "accuracy_b", "discordant",
               "group_size", "icc", "group_size_cv", "run_sd", "residual_sd")


def power(
    a=None,
    b=None,
    *,
    delta: float | None = None,
    n_items: int | None = None,
    n_groups: int | None = None,
    n_runs: int | None = None,
    power: float | None = None,
    sd: float | None = None,
    sd_a: float | None = None,
    sd_b: float | None = None,
    correlation: float | None = None,
    accuracy_a: float | None = None,
    accuracy_b: float | None = None,
    discordant: float | None = None,
    group_size: float | None = None,
    icc: float | None = None,
    group_size_cv: float | None = None,
    run_sd=None,
    residual_sd=None,
    rate_a: float | None = None,
    rate_sd: float | None = None,
    shift_sd: float | None = None,
    scores=None,
    baseline=None,
    pairs=None,
    correction: str = "max-t",
    groups=None,
    group_weighting: str = "items",
    strata=None,
    strata_weights=None,
    metric: str | Metric = "mean",
    runs: str | None = None,
    paired_runs: bool = False,
    ids=None,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    hypothesis: str = "difference",
    margin: float | None = None,
    lower_is_better: bool = False,
    test: str | None = None,
    simulate: bool = False,
    n_simulations: int = 1000,
    seed: int | None = None,
    progress=None,
) -> PowerResult:
    """Plan a paired comparison: the items (groups, seeds) needed to detect a difference,
    the power at a size, or the smallest difference a size detects.

    Leave exactly one of ``delta``, the size (``n_items``, or ``n_groups`` with groups,
    or ``n_runs`` with seeds) and ``power`` as None: it is solved for.

    Parameters
    ----------
    a, b : array_like, optional
        A pilot (or an earlier evaluation), as :func:`pairboot.compare` takes it, with
        ``groups``, ``strata``, ``strata_weights``, ``metric``, ``runs``,
        ``paired_runs`` and ``ids``: the spread of the differences is read off it.
    delta : float, optional
        The true difference ``B - A`` to detect, on the metric's scale: the smallest
        one that matters to you (not the pilot's observed difference).
    n_items, n_groups, n_runs : int, optional
        The planned size: items (each scored by both systems), groups, runs per system.
    power : float, optional
        The chance of detecting ``delta`` (0.8 is usual).
    sd : float, optional
        Without a pilot: the standard deviation of the per-item differences ``b - a``
        (with seeds: of an item's true difference).
    sd_a, sd_b, correlation : float, optional
        Or the systems' standard deviations and the correlation of their scores.
    accuracy_a, accuracy_b, discordant : float, optional
        0/1 scores: the accuracies (``accuracy_b`` or ``delta``) and the share of items
        where the systems disagree (or ``correlation``): Connor (1987).
    group_size, icc, group_size_cv : float, optional
        Items in groups: the mean group size, the intra-cluster correlation of the
        differences and the group sizes' coefficient of variation.
    run_sd, residual_sd : float or (float, float), optional
        Seeds: the seed effect's and the noise's standard deviation (one for both
        systems, or a pair); ``n_runs`` runs per system.
    rate_a, rate_sd, shift_sd : float, optional
        A k-trial metric (``metric="pass^4"``, ``runs="samples"``) without a pilot: A's
        tasks' success probabilities are a Beta of mean ``rate_a`` and standard
        deviation ``rate_sd``; B's are A's moved on the logit scale to ``delta``, the
        move spread over tasks with standard deviation ``shift_sd`` (default 0).  With
        a k-trial metric ``n_runs`` is the trials per task (default: the pilot's, or
        k), ``n_items`` the tasks, and ``result.trials_grid`` the plan at k to 4k
        trials (:mod:`pairboot.planning.trials`).
    scores : mapping or DataFrame, optional
        A family's pilot, as :func:`pairboot.compare_many` takes it, with ``baseline``
        or ``pairs`` (default: all pairs) and ``correction`` ("max-t" or "bonferroni").
    confidence_level, alternative, hypothesis, margin, lower_is_better
        The test, as :func:`pairboot.compare` takes it; ``hypothesis`` "difference",
        "non-inferiority" or "superiority".
    test : {None, "mcnemar"}
        0/1 scores: the test that will be run.  None plans for the bootstrap interval,
        sized by Connor's asymptotic McNemar test, and gives the exact test's answer
        beside it (``result.exact_mcnemar``); ``"mcnemar"`` plans for
        ``compare(..., test="mcnemar")``, the exact McNemar test (its power summed over
        the binomial count of discordant items: :mod:`pairboot.planning.mcnemar`).
    simulate : bool, default False
        Check the answer by simulation (a pilot only): ``n_simulations`` evaluations of
        the planned size drawn from the pilot with the true difference set to ``delta``,
        each run through :func:`pairboot.compare`; ``result.simulation`` holds the
        simulated power and its Monte Carlo error
        (:func:`pairboot.planning.simulate_power`, with ``seed`` and ``progress``).

    Returns
    -------
    PowerResult

    Examples
    --------
    >>> import pairboot
    >>> res = pairboot.power(sd=0.5, delta=0.1, power=0.8)
    >>> res.n_items
    199
    >>> round(pairboot.power(sd=0.5, delta=0.1, n_items=199).power, 3)
    0.802
    >>> pairboot.power(accuracy_a=0.70, accuracy_b=0.72, discordant=0.2, power=0.8).n_items
    3923
    """
    if hypothesis == "equivalence":
        raise InputError("`hypothesis='equivalence'` is not planned yet: plan "
                         "'difference', 'non-inferiority' or 'superiority'",
                         param="hypothesis")
    args, data = check_options(locals())
    level, sides, margin = args.confidence_level, args.alternative, args.margin
    target = _probability(power, "power")
    delta = _delta(delta, hypothesis)
    n_items, n_groups, n_runs = (_count(v, name) for v, name in (
        (n_items, "n_items"), (n_groups, "n_groups"), (n_runs, "n_runs")))
    test = _test(1.0 - level, sides, args.hypothesis, margin, args.lower_is_better)
    known = {name: value for name, value in zip(_PARAMETERS, (
        sd, sd_a, sd_b, correlation, accuracy_a, accuracy_b, discordant, group_size, icc,
        group_size_cv, run_sd, residual_sd)) if value is not None}
    trials = trials_metric(data.metric)
    given_trials = {name: value for name, value in zip(TRIALS_PARAMETERS, (
        rate_a, rate_sd, shift_sd)) if value is not None}
    if trials is not None or given_trials:
        if n_groups is not None:
            raise InputError("`n_groups` with a k-trial metric: its plan counts tasks "
                             "(`n_items`) and trials per task (`n_runs`)", param="n_groups")
        setup, n_runs = trials_setup(trials, a, b, scores, known, given_trials, args, data,
                                     delta, n_items, n_runs, target, simulate)
        res = _solve(setup, test, delta, target, n_items, None, n_runs, None, args)
        return with_grid(res, setup, test, args)
    family = None
    if args.runs is None and args.paired_runs:
        raise InputError("`paired_runs` is for `runs='seeds'`", param="paired_runs")
    if scores is not None:
        if args.runs is not None:
            raise InputError("a family with runs is not planned yet: plan each pair with "
                             "`a`, `b` and `runs`", param="runs")
        if a is not None or b is not None:
            raise InputError("give a pilot of two systems (`a`, `b`) or a family's "
                             "(`scores`), not both", param="scores")
        setup, family = _family(scores, args, data, test)
        test = Test(family.alpha_each(args.correction), test.two_sided, test.direction,
                    test.offset)
    elif a is not None or b is not None:
        if a is None or b is None:
            raise InputError(f"a pilot needs both systems: `{'a' if a is None else 'b'}` "
                             "is missing", param="a" if a is None else "b")
        setup = from_pilot(a, b, args, data)
    else:
        setup = from_parameters(delta=delta, **known)
    if (a is not None or scores is not None) and known:
        name = next(iter(known))
        raise InputError(f"`{name}` with a pilot: the pilot gives the spread; leave it out "
                         "(or plan from parameters without the pilot)", param=name)
    if baseline is not None and scores is None or pairs is not None and scores is None:
        raise InputError("`baseline` and `pairs` name a family's comparisons: give the "
                         "family's `scores`", param="baseline" if baseline else "pairs")
    if delta is None and setup.delta is not None:
        delta = setup.delta
    if args.test is not None:
        setup = exact_setup(setup, args.test, args.hypothesis, scores is not None)
    if simulate and (a is None or scores is not None):
        raise InputError("`simulate=True` resamples a pilot of two systems: give `a` and "
                         "`b`" + (" (a family's plan is not simulated)" if scores is not None
                                  else ""), param="simulate")
    res = _solve(setup, test, delta, target, n_items, n_groups, n_runs, family, args)
    if not simulate:
        return res
    if res.n_items is None or res.delta is None:
        raise InputError("there is no planned size and difference to simulate: "
                         + res.summary(), param="simulate")
    grouped = groups is not None
    sim = simulated_power(
        a, b, dataclasses.replace(args, n_resamples=SIMULATED_RESAMPLES), data,
        n_items=None if grouped else res.n_items, n_groups=res.n_groups if grouped else None,
        n_runs=res.n_runs if args.runs == "seeds" else None, delta=res.delta,
        n_simulations=n_simulations)
    return dataclasses.replace(res, simulation=sim)


POWER_MAX = 1.0 - 1e-9
"""The largest power planned for: the powers are computed to about 1e-12, and a target
closer to 1 could not be told from it."""

RUNS_MAX = 10_000
"""The most runs per system planned (and searched for)."""


def _probability(value, name: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (
            0.0 < float(value) < 1.0):
        raise InputError(f"`{name}` must be between 0 and 1, got {value!r}", param=name)
    if float(value) > POWER_MAX:
        raise InputError(f"`{name}` must be at most 1 - 1e-9 (a power is computed to "
                         f"about 1e-12, and one closer to 1 cannot be told from 1), got "
                         f"{value!r}", param=name)
    return float(value)


def _delta(value, hypothesis: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(
            float(value)):
        raise InputError(f"`delta` must be a finite number, got {value!r}", param="delta")
    if float(value) == 0 and hypothesis == "difference":
        raise InputError("`delta` is 0: no size detects a difference of 0; give the "
                         "smallest difference that matters", param="delta")
    return float(value)


def _count(value, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise InputError(f"`{name}` must be a positive integer, got {value!r}", param=name)
    most = RUNS_MAX if name == "n_runs" else NEVER
    if value > most:
        raise InputError(f"`{name}` must be at most {most:,} (beyond any evaluation "
                         f"planned), got {value:,}", param=name)
    return int(value)


def _test(alpha: float, sides: str, hypothesis: str, margin, lower_is_better: bool) -> Test:
    direction = -1 if sides == "less" or (sides == "two-sided" and lower_is_better) else 1
    offset = 0.0
    if hypothesis == "non-inferiority":
        offset = margin
    elif hypothesis == "superiority":
        offset = -margin
    return Test(alpha, sides == "two-sided", direction, offset)


def _family(scores, args: Arguments, data: Data, test: Test):
    if args.correction not in PLAN_CORRECTIONS:
        raise InputError(f"`correction` must be one of {', '.join(PLAN_CORRECTIONS)} to "
                         f"plan a family, got {args.correction!r}", param="correction")
    names, systems = family_systems(scores)
    targets = family_targets(names, data.baseline, data.pairs)
    d = pilot_design(systems, names, args, data)
    everything, _ = contrast_covariance(d, list(targets) + list(range(len(names))))
    own = np.diag(everything)[len(targets):]
    cov = everything[:len(targets), :len(targets)]
    units = int(d.units_per_stratum.sum())
    var = np.diag(cov) * units
    for k, (i, j) in enumerate(targets):
        check_spread(float(cov[k, k]), float(own[i] + own[j]), units, param="scores",
                     what=f"comparison {names[j]} - {names[i]}: ")
    sd = np.sqrt(np.diag(cov))
    planner = FamilyPlanner(var, cov / np.outer(sd, sd), test,
                            names=[(names[i], names[j]) for i, j in targets],
                            n_strata=d.n_strata)
    setup = Setup(TModel(float(var.max()), n_strata=d.n_strata), None, "paired t",
                  unit="groups" if d.n_groups is not None else "items",
                  items_per_unit=d.n_items / d.n_groups if d.n_groups else 1.0,
                  minimum=d.n_strata + 1,
                  facts={"pilot_items": d.n_items, "pilot_groups": d.n_groups,
                         "metric": d.metric.name, "unit_variance": float(var.max()),
                         "sd": float(math.sqrt(var.max()))},
                  assumptions=(f"a family of {len(targets)} comparison"
                               f"{'' if len(targets) == 1 else 's'} of {len(names)} "
                               f"systems, from a pilot of {d.n_items:,} items",
                               "each comparison's size: the paired t at the per-comparison "
                               "level, for the largest variance of the family",
                               "joint power: a multivariate normal with the pilot's "
                               "correlations, simulated with a fixed seed"))
    return setup, planner


def _solve(setup: Setup, test: Test, delta, target, n_items, n_groups, n_runs,
           family, args: Arguments) -> PowerResult:
    model, facts = setup.model, dict(setup.facts or {})
    with_runs = model.runs
    m = setup.items_per_unit
    grouped = facts.get("group_size") is not None or setup.unit == "groups"
    if n_items is not None and n_groups is not None:
        raise InputError("give `n_items` or `n_groups`, not both", param="n_groups")
    if n_groups is not None and not grouped:
        raise InputError("`n_groups` needs groups (`groups`, or `group_size` and `icc`)",
                         param="n_groups")
    if n_runs is not None and not with_runs:
        raise InputError("`n_runs` needs seeds (`runs='seeds'`, or `run_sd`)",
                         param="n_runs")
    if n_runs == 1 and model.floor(1) > 0:
        raise InputError(ONE_RUN, param="n_runs")
    if target is not None and not target > test.alpha:
        raise InputError(f"`power` {target:g} is not above the test's level "
                         f"({test.alpha:.3g}): the test rejects that often when there is no "
                         "difference at all, at any size; ask for more (0.8 is usual)",
                         param="power")
    given = n_items if n_items is not None else n_groups
    unknown = [name for name, v in (("delta", delta), ("power", target)) if v is None]
    if given is None:
        unknown.append("n_groups" if setup.unit == "groups" else "n_items")
    if with_runs and n_runs is None:
        unknown.append("n_runs")
    if len(unknown) != 1:
        what = "none" if not unknown else " and ".join(f"`{u}`" for u in unknown)
        raise InputError(
            "give all but one of `delta`, `n_items` (or `n_groups`, `n_runs`) and `power`: "
            "the one not given is solved for; "
            + (f"{what} {'are' if len(unknown) > 1 else 'is'} not given" if unknown
               else "every one is given"),
            param=unknown[-1] if unknown else "power")
    solved = unknown[0]

    def units_of(items, groups_) -> float:  # the model's units from the sizes given
        if setup.unit == "groups":
            return groups_ if groups_ is not None else items / m
        return items if items is not None else groups_ * m

    if delta is not None:
        _check_delta(delta, setup, test)
    units = None if given is None else units_of(n_items, n_groups)
    # (never fewer units than any paired test needs at the level: 6 at 95%, two-sided;
    # compare() gives no verdict below that, whatever the variance says: its power is 0)
    fewest = max(setup.minimum, units_for(args.confidence_level, args.alternative))
    if units is not None and units < fewest:
        raise InputError(f"the planned size leaves fewer than {fewest} {setup.unit}: "
                         + ("a t test needs more" if units < setup.minimum else
                            f"compare() gives no verdict below {fewest} at this level (even "
                            f"{setup.unit} that all favour one system could do so by "
                            "chance)"), param="n_groups" if n_groups else "n_items")
    n_runs_needed = None
    given_delta = delta
    if solved in ("n_items", "n_groups"):
        units = size_for(model, test, delta, target, n_runs, fewest)
        if units is None and with_runs:
            n_runs_needed = runs_for(model, test, delta, target, None, RUNS_MAX)
    elif solved == "n_runs":
        n_runs = runs_for(model, test, delta, target, units, RUNS_MAX)
    elif solved == "power":
        target = power_of(model, test, units, delta, n_runs)
    else:
        delta = mde_for(model, test, units, target, n_runs, setup.side_cap(test.direction))

    if units is not None:
        if setup.unit == "groups":
            if n_items is None or solved in ("n_items", "n_groups"):
                n_items = int(math.ceil(units * m - 1e-9))
            n_groups = int(math.ceil(units - 1e-9))
        else:
            n_items = int(units) if solved in ("n_items", "n_groups") or n_items is None \
                else n_items
            n_items = int(math.ceil(n_items))
            n_groups = int(math.ceil(n_items / m)) if grouped and n_groups is None else n_groups
    elif solved in ("n_items", "n_groups"):
        n_items = n_groups = None

    unpaired = None
    if setup.unpaired is not None and delta is not None and target is not None:
        u = size_for(setup.unpaired, test, delta, target, None, setup.minimum)
        unpaired = None if u is None else int(math.ceil(u * (m if setup.unit == "groups"
                                                             else 1) - 1e-9))
    saving = (1.0 - n_items / unpaired if unpaired and n_items else None)

    span = None if family is not None else pilot_range(
        setup, test, solved, given_delta, target, units, n_runs, fewest)
    for category, text in pilot_notes(setup, span_words(span, solved, setup.unit)):
        warnings.warn(text, category, stacklevel=3)
    unit = "runs" if solved == "n_runs" else setup.unit
    runs_at, units_at = n_runs, units

    def planner(size, d):
        if unit == "runs":
            return model.power(test, units_at, d, size)
        return model.power(test, size, d, runs_at)

    fam = None
    if family is not None:
        fam = _family_plan(family, args.correction, delta, target, units)
    strata = tuple(StratumPlan(*s) for s in facts.pop("strata", ()) or ())
    floor = model.floor(n_runs) if with_runs and n_runs else None
    variance = None
    if units is not None and hasattr(model, "variance") and (n_runs or not with_runs):
        variance = model.variance(units, n_runs)
    elif units is not None and delta is not None and hasattr(model, "discordant"):
        variance = ((model.discordant - delta * delta) * getattr(model, "design_effect", 1.0)
                    / units)
    return PowerResult(
        solved=solved, delta=delta, power=target, n_items=n_items,
        n_items_unpaired=unpaired, pairing_saving=saving, n_groups=n_groups,
        n_runs=n_runs, n_runs_needed=n_runs_needed, confidence_level=args.confidence_level,
        alternative=args.alternative, hypothesis=args.hypothesis, margin=args.margin,
        lower_is_better=args.lower_is_better, test=args.test, source=(
            "parameters" if facts.get("pilot_items") is None else "pilot"),
        model=setup.name, metric=facts.pop("metric", "mean"), sd=facts.pop("sd", None),
        unit_variance=facts.pop("unit_variance", getattr(model, "unit_variance", None)),
        strata=strata, variance=variance, floor=floor, family=fam, assumptions=setup.assumptions,
        planner=planner, unit=unit, pilot_range=span, exact_mcnemar=exact_offer(
            setup, test, solved, delta, target, units, fewest), **facts)


def _check_delta(delta: float, setup: Setup, test: Test) -> None:
    if abs(delta) > setup.cap:
        raise InputError(f"`delta` {delta:+g} is beyond what {setup.cap_what} allows (at "
                         f"most {setup.cap:g} apart)", param="delta")
    if abs(delta) > setup.side_cap(delta):
        low, high = setup.caps
        raise InputError(f"`delta` {delta:+g} is beyond what the accuracy and the share of "
                         f"discordant items allow (B - A from {-low:+g} to {high:+g})",
                         param="delta")
    if test.shift(delta) <= 0:
        raise InputError(f"`delta` {delta:+g} is on the side the test does not look at "
                         "(or within the margin): no size detects it", param="delta")


def _family_plan(planner: FamilyPlanner, correction: str, delta, target, units) -> FamilyPlan:
    sizes = {}
    for c in PLAN_CORRECTIONS:
        if delta is not None and target is not None:
            sizes[c] = (planner.n_each(c, delta, target), planner.n_all(c, delta, target))
        else:
            sizes[c] = (None, None)
    at = units if units is not None else sizes[correction][0]
    p_each = p_all = math.nan
    if at is not None and delta is not None:
        p_each = planner.power_each(correction, at, delta)
        p_all = planner.power_all(correction, at, delta)
    return FamilyPlan(
        comparisons=tuple(planner.names), correction=correction,
        alpha_per_comparison=planner.alpha_each(correction),
        critical_value=planner.max_t, critical_value_error=planner.max_t_error,
        bonferroni_critical_value=planner.bonferroni, correlations=planner.correlations,
        variances=tuple(float(v) for v in planner.variances),
        n_each=sizes[correction][0], n_all=sizes[correction][1], power_each=p_each,
        power_all=p_all, power_all_error=planner.power_error(p_all) if p_all == p_all
        else math.nan, n_simulations=planner.n_draws,
        n_each_bonferroni=sizes["bonferroni"][0], n_each_max_t=sizes["max-t"][0],
        n_all_bonferroni=sizes["bonferroni"][1], n_all_max_t=sizes["max-t"][1])


def detectable_difference(standard_error: float, n_units: int, *,
                          confidence_level: float = 0.95, alternative: str = "two-sided",
                          power: float = 0.8) -> float | None:
    """The smallest true difference a comparison of ``n_units`` units (items, or groups)
    whose estimate has ``standard_error`` detects with ``power`` at ``confidence_level``
    (the paired t, ``n_units - 1`` degrees of freedom): what compare()'s report can say
    of its own size instead of the observed-power sentence.  On the side ``alternative``
    looks at (two-sided: its size); None without a standard error.

    >>> round(detectable_difference(0.01, 1000), 5)
    0.02804
    """
    if not (math.isfinite(standard_error) and standard_error > 0) or n_units < 2:
        return None
    args, _ = check_options(locals())
    test = _test(1.0 - args.confidence_level, args.alternative, "difference", None, False)
    model = TModel(standard_error ** 2 * n_units)
    return mde_for(model, test, n_units, _probability(power, "power"))

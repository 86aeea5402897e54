"""The noise floor (:func:`pairboot.noise_floor`): two runs of the same build compared
as A and B (an A/A comparison), and the floor it gives a comparison of A and B at the
same size (``compare(..., noise_floor=...)``).

The A/A comparison is compare()'s own (the same design: groups, strata, runs, estimand,
method), always of a difference and two-sided: re-running moves a difference either way.
Its interval, moved to 0, is the floor; its standard error gives the smallest difference
detectable at this size.  A floor measured on other units than the comparison's is
scaled by ``sqrt(measured / stated)`` (docs/trials.md, "The noise floor").
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import numpy as np

from pairboot.core.diagnostics import minimum_detectable
from pairboot.errors import InputError, spell
from pairboot.options import Arguments, Data
from pairboot.results.compare import CompareResult, ConfidenceInterval
from pairboot.results.noise import NoiseFloor

__all__ = ["measure", "restate", "with_noise_floor"]

Compare = Callable[..., CompareResult]
"""compare()'s answer on checked options: ``compare_two(a, b, args, data, *, top_items,
stacklevel)``."""


def measure(base, rerun, args: Arguments, data: Data, compare_two: Compare, *,
            names: tuple[str, str], param: str | None = None, stacklevel: int = 2
            ) -> NoiseFloor:
    """The A/A comparison of ``base`` and ``rerun`` on checked options, at its own size,
    by ``compare_two`` (:func:`pairboot.comparisons.two.compare_two`, passed in: that
    module calls this one); messages name the runs ``names`` (and ``param``, when
    given, as the argument)."""
    own = dataclasses.replace(args, alternative="two-sided", hypothesis="difference",
                              margin=None, margins=None, lower_is_better=False, test=None,
                              exact=None)
    spelled = {"a": lambda v: f"`{names[0]}`", "b": lambda v: f"`{names[1]}`"}
    try:
        trials = _trials(base, rerun, args, names)
        res = compare_two(base, rerun, own, data, top_items=None, stacklevel=stacklevel + 1)
    except InputError as exc:
        raise InputError(spell(str(exc), spelled),
                         param=param or {"a": names[0], "b": names[1]}.get(
                             exc.param, exc.param)) from None
    units = res.n_groups if res.n_groups is not None else res.n_items
    low, high = res.confidence_interval
    floor = NoiseFloor(
        estimate=res.estimate, confidence_interval=res.confidence_interval,
        p_value=res.p_value, standard_error=res.standard_error,
        floor=ConfidenceInterval(low - res.estimate, high - res.estimate),
        minimum_detectable=None, n_units=units, measured_units=units, n_trials=trials,
        unit="items" if res.n_groups is None else "groups",
        confidence_level=res.confidence_level, method=res.method,
        alternative=args.alternative, metric=res.metric, runs=args.runs,
        estimand=res.estimand, n_resamples=res.n_resamples, seed=res.seed,
        version=res.version, warnings=res.warnings)
    return restate(floor, units, args.alternative)


def _trials(base, rerun, args: Arguments, names: tuple[str, str]) -> int | None:
    """With ``runs="samples"``: the trials per item of both runs (refused when they
    differ: the floor of a run of n trials is not that of m); None otherwise."""
    if args.runs != "samples":
        return None
    shapes = [np.shape(x) for x in (base, rerun)]
    if any(len(s) < 2 for s in shapes):
        return None  # (compare() refuses it, naming the run)
    if shapes[0][1] != shapes[1][1]:
        raise InputError(f"`{names[0]}` has {shapes[0][1]} trials per item and "
                         f"`{names[1]}` {shapes[1][1]}: the two runs of an A/A comparison "
                         "need the same number", param="b")
    return int(shapes[0][1])


def restate(floor: NoiseFloor, n_units: int, alternative: str) -> NoiseFloor:
    """``floor`` stated at ``n_units`` units (its floor and standard error scaled by
    ``sqrt(measured_units / n_units)``) and its minimum detectable difference on
    ``alternative``'s sides."""
    ratio = math.sqrt(floor.measured_units / n_units) / floor.scale
    se = floor.standard_error * ratio
    alpha = round(1.0 - floor.confidence_level, 12)
    return dataclasses.replace(
        floor, standard_error=se, n_units=int(n_units), alternative=alternative,
        floor=ConfidenceInterval(floor.floor.low * ratio, floor.floor.high * ratio),
        minimum_detectable=minimum_detectable(se, alpha, alternative))


def with_noise_floor(result: CompareResult, given, a, args: Arguments, data: Data,
                     compare_two: Compare) -> CompareResult:
    """``result`` with its :attr:`~CompareResult.noise_floor`: ``given`` a
    :class:`NoiseFloor`, or two runs of A measured here with the comparison's design
    (its labels too, so they must have its items); stated at the comparison's units."""
    units = result.n_groups if result.n_groups is not None else result.n_items
    if isinstance(given, NoiseFloor):
        floor = given
    elif isinstance(given, (tuple, list)) and len(given) == 2:
        labelled = [name for name, x in (("groups", data.groups), ("strata", data.strata),
                                         ("ids", data.ids))
                    if x is not None and not isinstance(x, str)]
        sizes = {_length(given[0]), _length(a)}
        if labelled and len(sizes) > 1:
            raise InputError(
                f"`noise_floor`: its runs have {_length(given[0])} items and `a` "
                f"{_length(a)}, so the comparison's `{labelled[0]}` cannot label them; "
                "pass `noise_floor=pairboot.noise_floor(base, rerun, ...)` with their own",
                param="noise_floor")
        floor = measure(given[0], given[1], dataclasses.replace(args, progress=None), data,
                        compare_two, names=("noise_floor[0]", "noise_floor[1]"),
                        param="noise_floor", stacklevel=5)
    else:
        raise InputError("`noise_floor` must be two runs of A, the same build "
                         "(`(base, rerun)`), or a pairboot.NoiseFloor, got "
                         f"{type(given).__name__}", param="noise_floor")
    _check_fits(floor, result, a, args)
    return dataclasses.replace(result, noise_floor=restate(floor, units, args.alternative))


def _check_fits(floor: NoiseFloor, result: CompareResult, a, args: Arguments) -> None:
    """Refuse a floor of another metric, level, kind of runs, estimand or number of
    trials than the comparison's: it would measure another noise."""
    unit = "items" if result.n_groups is None else "groups"
    if floor.unit != unit:
        raise InputError(f"`noise_floor` was measured over {floor.unit} and the comparison "
                         f"resamples {unit}: measure it with the comparison's `groups`",
                         param="noise_floor")
    mine = {"metric": result.metric, "confidence_level": result.confidence_level,
            "runs": args.runs, "estimand": result.estimand}
    for name, value in mine.items():
        theirs = getattr(floor, name)
        if theirs != value:
            raise InputError(f"`noise_floor` was measured with `{name}={theirs!r}` and the "
                             f"comparison has `{name}={value!r}`: measure it with the "
                             "comparison's", param="noise_floor")
    if floor.n_trials is not None and len(np.shape(a)) >= 2 and (
            np.shape(a)[1] != floor.n_trials):
        raise InputError(f"`noise_floor` was measured with {floor.n_trials} trials per "
                         f"item and `a` has {np.shape(a)[1]}: the noise of a metric of "
                         "trials does not scale with their number; measure it with as "
                         "many", param="noise_floor")


def _length(x) -> int:
    """The items of a run as given (its rows)."""
    shape = np.shape(x)
    return int(shape[0]) if shape else 0

"""A planned size checked by simulation: resample a pilot to the size, set the difference
to delta, run the real interval many times, count the rejections.

:func:`simulate_power` draws ``n_simulations`` evaluations of the planned size from a
pilot (the per-item scores :func:`pairboot.compare` takes), each with the true difference
B - A set to ``delta``, runs :func:`pairboot.compare` on each with the planned options and
returns the share whose verdict rejects the null, with its Monte Carlo error.

How a simulated evaluation is drawn:

- **units**: the pilot's items are drawn with replacement to ``n_items`` (whole groups
  to ``n_groups`` with ``groups``; within each stratum, at the pilot's proportions, with
  ``strata``), the same draw for A and B (paired);
- **the difference**: the pilot's own difference is an estimate, not the difference to
  detect, so it is replaced by ``delta``: a mean's B scores are shifted by ``delta - d``
  (``d`` the pilot's B - A); 0/1 scores stay 0/1, and B's answers are flipped at random
  so that B's expected accuracy is A's plus ``delta`` (B's wrong answers to right, each
  with the probability that does it, when B must rise; right to wrong when it must fall);
  the counts of a pooled F1, precision, recall or accuracy are moved one by one, each
  with the probability (found by bisection) that sets the metric of B's expected sums to
  A's plus ``delta`` (B's errors fixed when it must rise, its hits missed when it must
  fall: :data:`pairboot.planning.simulated_data.MOVES`); other pooled metrics (macro-F1,
  BLEU, a ratio, a user's) have no move that sets them to ``delta``, and are refused;
- **runs** (``runs="seeds"``): each system's items x runs scores are split into item
  means, run effects and residuals (the two-way model of docs/runs.md); a simulated
  evaluation takes ``n_items`` items drawn with replacement (their item means, the same
  items for A and B), ``n_runs`` *new* run effects drawn from a normal with the pilot's
  run variance (a pilot's 3 seeds resampled would repeat seeds, and understate the run
  variance), and each cell a residual drawn from its item's row (scaled by
  ``sqrt(k / (k - 1))``, k the pilot's runs); B is shifted by ``delta - d``.
  ``runs="samples"``: items drawn with their samples, B shifted.

With 0/1 scores and no groups, strata or runs, a simulated evaluation is its 2 x 2 table
of (A right, B right) counts, drawn as one multinomial, and its bootstrap the engine's
exact multinomial path over the table's cells (:mod:`pairboot.engine.multinomial`), with
the seed compare() would take: the same interval as :func:`pairboot.compare` on the
table's items, at a cost that does not grow with the items (:func:`binary_interval`).
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import time
import warnings
from collections.abc import Callable

import numpy as np

from pairboot.comparisons.two import compare_two
from pairboot.engine.multinomial import multinomial_sums
from pairboot.errors import InputError
from pairboot.metrics import Metric
from pairboot.metrics.builtin import MEAN
from pairboot.metrics.names import builtin_stats, resolve_metric
from pairboot.options import Arguments, Data, check_options
from pairboot.planning.simulated_data import (
    CELLS,
    MOVES,
    Pilot,
    PlannedSize,
    Shift,
    count,
    difference_shift,
    draw_evaluation,
    planned_size,
    read_pilot,
)
from pairboot.progress import Progress
from pairboot.results.simulation import SimulatedPower
from pairboot.stats.hypotheses import SHOWN, read_test, verdict_of
from pairboot.stats.intervals import Bootstrap, bounds
from pairboot.stats.proportions import mcnemar_exact, wilson_interval
from pairboot.stats.pvalues import units_for

FAST_METHODS = ("percentile", "basic", "normal", "bca")
"""The methods the exact 0/1 path computes (the studentized one takes compare())."""

SIMULATED_RESAMPLES = 2000
"""The resamples of each simulated evaluation's interval, unless told (``n_resamples``)."""

SIMULATIONS_MAX = 1_000_000
"""The most simulated evaluations: the Monte Carlo error is then below 0.05 points."""

WORK_MAX = 10**12
"""The most work a simulation is allowed, in resampled items (:func:`simulation_work`):
about three hours at the 10^8 a second measured in docs/power.md."""

RATE = 1e8
"""Resampled items a second, about (docs/power.md's timings): for the estimate said."""

PER_EVALUATION = 10**5
"""compare()'s cost beside its resamples, in resampled items (about a millisecond)."""

TABLE_RESAMPLE = 50
"""A resample of the exact 0/1 path's table, in resampled items (docs/performance.md,
"Checking a plan by simulation")."""

CELL = 30
"""A cell of runs="seeds"'s items x runs, in resampled items (timed in docs/power.md)."""


def simulate_power(
    a,
    b,
    *,
    n_items: int | None = None,
    delta: float,
    n_simulations: int = 1000,
    confidence_level: float = 0.95,
    alternative: str = "two-sided",
    hypothesis: str = "difference",
    margin: float | None = None,
    lower_is_better: bool = False,
    groups=None,
    n_groups: int | None = None,
    strata=None,
    metric: str | Metric = "mean",
    method: str = "percentile",
    n_resamples: int = SIMULATED_RESAMPLES,
    runs: str | None = None,
    n_runs: int | None = None,
    test: str | None = None,
    seed: int | None = None,
    progress: Callable[[int], None] | Progress | None = None,
) -> SimulatedPower:
    """The power of a planned comparison, checked by simulation from a pilot.

    Draws ``n_simulations`` evaluations of the planned size from the pilot ``a``, ``b``
    (items resampled, the true difference B - A set to ``delta``: module docstring), runs
    :func:`pairboot.compare` on each with the options given, and counts the share whose
    verdict rejects the null (the interval excludes 0 on the tested side, or the
    margin's boundary).

    Parameters
    ----------
    a, b : array_like
        The pilot: per-item scores of A and B paired by position, as compare() takes
        them (items x runs with ``runs``).  0/1 scores stay 0/1 (flipped, not shifted).
    n_items : int
        Items per simulated evaluation (>= 2).  With ``groups``, give it or
        ``n_groups`` (not both): alone, it is turned into ``n_items`` over the pilot's
        mean group size groups.
    delta : float
        The true difference B - A of the simulated evaluations, on the metric's scale
        (0.02 is two points of accuracy); not 0 (but for non-inferiority, where 0 is the
        usual plan), and within the scores' range (for 0/1 scores A's accuracy plus
        ``delta`` within [0, 1]).  With ``lower_is_better`` a gain of B is a negative
        ``delta``.
    n_simulations : int, default 1000
        Simulated evaluations; the Monte Carlo error of the power is ``sqrt(p (1 - p) /
        n_simulations)`` (1.3 points at 80% and 1,000), with Wilson's interval beside it
        (what to read when few simulations, or all or none, reject).  At most
        :data:`SIMULATIONS_MAX`, and at most :data:`WORK_MAX` resampled items in all
        (:func:`simulation_work`): more is refused before any is run, with its cost.
    confidence_level, alternative, hypothesis, margin, lower_is_better, method, n_resamples
        The planned comparison's, as :func:`pairboot.compare` takes them.
    groups : array_like, optional
        The pilot's group labels: whole groups are drawn, and compare() resamples them.
    n_groups : int, optional
        Groups per simulated evaluation (with ``groups`` only).
    strata : array_like, optional
        The pilot's stratum labels: items (or groups) are drawn within each stratum, at
        the pilot's proportions (every stratum keeps at least 2).
    metric : {"mean", "f1", "precision", "recall", "accuracy"}
        A mean of per-item scores, or a built-in pooled metric of counts (``a`` and
        ``b`` items x statistics, whole numbers), whose counts are moved (module
        docstring).  Others (macro-F1, BLEU, a ratio, a :class:`pairboot.Metric` of
        one's own) are refused: no move of their statistics sets them to ``delta``.
    runs : {None, "seeds", "samples"}
        As compare()'s; with ``"seeds"`` new run effects are drawn (module docstring).
    test : {None, "mcnemar"}
        ``"mcnemar"``: each simulated evaluation (0/1 scores, its 2 x 2 table) is judged by
        the exact McNemar test, ``p <= 1 - confidence_level``, not by the interval.
    n_runs : int, optional
        Runs per system per simulated evaluation with ``runs="seeds"`` (default: the
        pilot's, per system).
    seed : int, optional
        Non-negative; the same seed gives the same result.  Without one, one is drawn
        and reported as ``result.seed``.
    progress : callable or Progress, optional
        Called as ``progress(done)`` with the number of finished simulations; a
        :class:`pairboot.Progress` is also told when numba compiles its kernel.

    Returns
    -------
    SimulatedPower

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> a = (rng.random(2000) < 0.7).astype(int)
    >>> b = np.where(rng.random(2000) < 0.2, 1 - a, a)
    >>> res = simulate_power(a, b, n_items=3000, delta=0.03, n_simulations=50, seed=1)
    >>> 0.5 < res.power < 1.0
    True
    """
    args, data = check_options(locals())
    return simulated_power(a, b, args, data, n_items=n_items, n_groups=n_groups,
                           n_runs=n_runs, delta=delta, n_simulations=n_simulations)


def simulated_power(a, b, args: Arguments, data: Data, *, n_items: int | None,
                    n_groups: int | None, n_runs: int | None, delta: float,
                    n_simulations: int) -> SimulatedPower:
    """:func:`simulate_power` on checked options (what :func:`pairboot.power` runs with
    ``simulate=True``)."""
    start = time.perf_counter()
    if args.seed is None:
        used_seed = int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
    else:
        used_seed = args.seed
    s_count = count("n_simulations", n_simulations, 1)
    delta = check_delta(delta, args.hypothesis)
    pooled = check_metric(data.metric)
    pilot = read_pilot(a, b, groups=data.groups, strata=data.strata, runs=args.runs,
                       metric=pooled)
    size = planned_size(pilot, n_items, n_groups, n_runs)
    shift = difference_shift(pilot, delta)
    metric = pooled if pooled is not None else "mean"
    tables = pilot.binary and pilot.runs is None and not pilot.grouped and not pilot.stratified
    mcnemar = check_test(args, tables)
    fast = tables and (mcnemar or args.method in FAST_METHODS)
    check_work(s_count, simulation_work(s_count, size, 1 if mcnemar else args.n_resamples,
                                        pilot.runs, fast))
    # (compare()'s verdict is "undefined" below the units any test needs at the level)
    decides = size.n_items >= units_for(args.confidence_level, args.alternative)
    progress = args.progress
    # compare()'s options: its progress only says numba compiles; with seeds its verdict
    # is the t interval's, which reads no resample, so one is drawn, not thousands
    each = dataclasses.replace(
        args, runs=pilot.runs, test=None,
        n_resamples=1 if pilot.runs == "seeds" else args.n_resamples,
        progress=CompilingOnly(progress) if isinstance(progress, Progress) else None)
    rejected = 0
    items_seen = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s in range(s_count):
            data_rng = np.random.Generator(np.random.PCG64(
                np.random.SeedSequence(used_seed, spawn_key=(s, 0))))
            boot_seed = int(np.random.SeedSequence(used_seed, spawn_key=(s, 1))
                            .generate_state(1, np.uint32)[0])
            if mcnemar:  # (the test's p on the table: no resamples)
                table = data_rng.multinomial(size.n_items, shift.cells)
                p = mcnemar_exact(int(table[2]), int(table[1]), alternative=args.alternative)
                verdict = "better" if p <= 1.0 - args.confidence_level else "inconclusive"
                items_seen += size.n_items
            elif fast:
                table = data_rng.multinomial(size.n_items, shift.cells)
                interval = binary_interval(table, seed=boot_seed, args=args)
                verdict = verdict_of(args.hypothesis, args.margin, interval,
                                     args.lower_is_better) if decides else "undefined"
                items_seen += size.n_items
            else:
                sa, sb, sg, sh = draw_evaluation(pilot, size, shift, data_rng)
                res = compare_two(sa, sb, dataclasses.replace(each, seed=boot_seed),
                                  Data(groups=sg, strata=sh, metric=metric))
                verdict = res.verdict()
                items_seen += res.n_items
            rejected += verdict in SHOWN[args.hypothesis]
            if progress is not None:
                progress(s + 1)
    power = rejected / s_count
    return SimulatedPower(
        power=power,
        monte_carlo_error=math.sqrt(power * (1.0 - power) / s_count),
        monte_carlo_interval=wilson_interval(rejected, s_count, 0.95),
        n_simulations=s_count,
        n_items=round(items_seen / s_count),
        n_groups=size.n_groups,
        delta=delta,
        seconds=time.perf_counter() - start,
        method_words=describe(pilot, size, shift, args, fast),
        n_runs=size.n_runs,
        seed=used_seed,
    )


class CompilingOnly(Progress):
    """What compare() tells a simulation's progress display: only that numba compiles
    (its resamples are not the simulation's progress)."""

    def __init__(self, outer: Progress) -> None:
        self.outer = outer

    def __call__(self, done: int) -> None:
        pass

    def compiling(self) -> None:
        self.outer.compiling()


# --- the exact 0/1 path ----------------------------------------------------------------


def binary_interval(table, *, seed: int, args: Arguments) -> tuple[float, float]:
    """The interval compare() gives on the items of a paired 0/1 ``table`` with ``seed``.

    ``table`` holds the counts of the cells of :data:`CELLS` (both wrong, only B right,
    only A right, both right).  The bootstrap of items that take 4 distinct values is
    the multinomial over the cells (the engine's exact path, drawn by
    :func:`pairboot.engine.multinomial.multinomial_sums` with the streams compare()
    uses), so with the items laid out cell by cell in that order (the order in which
    compare() meets the distinct rows) and 16 items per non-empty cell or more (where
    compare() takes that path) the draws are compare()'s, and so is the interval.
    ``args`` holds the options (checked); methods: :data:`FAST_METHODS`.
    """
    table = np.asarray(table, dtype=np.int64)
    n = int(table.sum())
    present = table > 0
    rows, counts = CELLS[present], table[present]
    sums = multinomial_sums(rows, counts, args.n_resamples, seed, 0, 0)
    theta = sums[:, 1] / n - sums[:, 0] / n
    n_a = float(counts @ rows[:, 0])
    n_b = float(counts @ rows[:, 1])
    est = n_b / n - n_a / n
    influence = None
    if args.method == "bca":  # (the jackknife: each item left out, as compare() does)
        left_out = ((n_b - rows[:, 1]) / (n - 1) - (n_a - rows[:, 0]) / (n - 1)) - est
        influence = [np.repeat(est + left_out, counts)]
    boot = Bootstrap.from_replicates(est, theta, influence=influence)
    alpha = 1.0 - args.confidence_level
    interval, _, _ = read_test(
        args.hypothesis, args.margin, args.alternative, alpha,
        lambda at, sides: bounds(args.method, boot, at, sides),
        lambda sides, null: math.nan, args.lower_is_better, tol=boot.tolerance)
    return interval


def binary_items(table) -> tuple[np.ndarray, np.ndarray]:
    """The items of a paired 0/1 ``table`` (counts of :data:`CELLS`), laid out cell by
    cell: what :func:`binary_interval` computes compare()'s interval of."""
    table = np.asarray(table, dtype=np.int64)
    return np.repeat(CELLS[:, 0], table), np.repeat(CELLS[:, 1], table)


# --- the arguments, and the words --------------------------------------------------------


def check_delta(delta, hypothesis: str = "difference") -> float:
    """The true difference: a finite number, not 0 where 0 lies in the null hypothesis
    (a difference's, a superiority's); 0 is the usual non-inferiority plan (the systems
    equal, the test against the margin's boundary)."""
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real) or not math.isfinite(
            delta):
        raise InputError(f"`delta` must be a finite number, got {delta!r}", param="delta")
    if delta == 0 and hypothesis != "non-inferiority":
        raise InputError("`delta` is the difference to detect: use delta != 0 (at 0 the "
                         "rejection rate is at most the test's level, not a power)",
                         param="delta")
    return float(delta)


def simulation_work(n_simulations: int, size: PlannedSize, n_resamples: int, runs,
                    fast: bool) -> int:
    """An upper bound on what ``n_simulations`` evaluations of ``size`` cost, in
    resampled items (about 10^8 a second, :data:`RATE`): compare() resamples its items
    ``n_resamples`` times and costs about :data:`PER_EVALUATION` more; the exact 0/1
    path's resample of a table costs about :data:`TABLE_RESAMPLE`; runs="seeds" reads
    each item's runs (a t interval, no resamples; :data:`CELL` a cell).  The constants
    are docs/power.md's timings, rounded up."""
    if fast:
        return n_simulations * n_resamples * TABLE_RESAMPLE
    if runs == "seeds":
        cells = size.n_items * sum(size.n_runs)
        return n_simulations * (cells * CELL + PER_EVALUATION)
    return n_simulations * (n_resamples * size.n_items + PER_EVALUATION)


def check_work(n_simulations: int, work: int) -> None:
    """Refuse, before any is run, more than :data:`SIMULATIONS_MAX` simulations or more
    than :data:`WORK_MAX` work, saying what it would cost."""
    if n_simulations <= SIMULATIONS_MAX and work <= WORK_MAX:
        return
    raise InputError(f"`n_simulations` {n_simulations:,}: the simulation's work is about "
                     f"{work:.2g} item-resamples (about {duration(work / RATE)} at {RATE:.0g} "
                     f"a second); at most {SIMULATIONS_MAX:,} simulations and {WORK_MAX:.0g} "
                     "item-resamples are run: simulate fewer (1,000 give a Monte Carlo "
                     "error of 1.3 points at 80%), or check a smaller plan",
                     param="n_simulations")


def duration(seconds: float) -> str:
    """A time in words: seconds, minutes, hours, days or years, to 2 digits."""
    for unit, length in (("years", 365.25 * 86400), ("days", 86400), ("hours", 3600),
                         ("minutes", 60)):
        if seconds >= 2 * length:
            return f"{seconds / length:,.2g} {unit}"
    return f"{seconds:.2g} seconds"


def check_test(args: Arguments, tables: bool) -> bool:
    """Whether the simulated evaluations are judged by the exact McNemar test
    (``test="mcnemar"``: 0/1 scores of items without groups, strata or runs, a
    difference); the permutation test is not simulated."""
    if args.test is None:
        return False
    if args.test != "mcnemar":
        raise InputError("`test='permutation'` is not simulated: simulate the interval "
                         "(without `test`)", param="test")
    if not tables:
        raise InputError("`test='mcnemar'` is simulated on 0/1 scores of items without "
                         "groups, strata or runs", param="test")
    if args.hypothesis != "difference":
        raise InputError("`test='mcnemar'` tests for a difference, not a margin",
                         param="test")
    return True


def check_metric(metric) -> Metric | None:
    """None for a mean; the built-in pooled metrics whose counts can be moved
    (:data:`pairboot.planning.simulated_data.MOVES`); the others are refused."""
    name = metric.name if isinstance(metric, Metric) else metric
    if name == "mean" and (not isinstance(metric, Metric) or metric is MEAN):
        return None
    if isinstance(name, str) and name.lower() in MOVES:
        builtin = resolve_metric(name.lower(), len(builtin_stats(name.lower())))
        if not isinstance(metric, Metric) or metric is builtin:
            return builtin
    raise InputError(f"`metric={name!r}`: the simulation moves a mean's scores or the "
                     f"counts of {', '.join(sorted(MOVES))}; no move of this metric's "
                     "statistics sets it to delta exactly: plan it with the closed forms",
                     param="metric")


def pilot_discordance(pilot: Pilot) -> float:
    """The share of the pilot's items on which two 0/1 systems disagree."""
    return float(np.mean(pilot.a != pilot.b))


def describe(pilot: Pilot, size: PlannedSize, shift: Shift, args: Arguments,
             fast: bool) -> str:
    """What was simulated, and how the interval was computed, in a few words."""
    def plural(n: int, unit: str) -> str:
        return f"{n:,} {unit[:-1] if n == 1 else unit}"

    unit = "groups" if pilot.grouped else "items"
    drawn = plural(size.n_groups if pilot.grouped else size.n_items, unit)
    where = " within strata" if pilot.stratified else ""
    if shift.moves is not None:
        how = "errors fixed" if shift.up else "hits missed"
        moved = (f"B's {pilot.metric.name} counts moved ({how}) with probability "
                 f"{shift.share:.4g}")
    elif shift.flip:
        moved = (f"B's {'wrong' if shift.up else 'right'} answers flipped ({shift.share:.4g} "
                 "of them, half where the systems agree and half where they disagree), "
                 f"disagreeing on {shift.cells[1] + shift.cells[2]:.4g} of the items as "
                 f"the pilot on {pilot_discordance(pilot):.4g}")
    else:
        moved = f"B shifted by {shift.amount:+.4g}"
    runs = ""
    if size.n_runs is not None:
        runs = f", {size.n_runs[0]} and {size.n_runs[1]} runs with new run effects"
    sides = args.alternative if args.hypothesis == "difference" else args.hypothesis
    level = f"{100 * args.confidence_level:.15g}%"  # (never rounded to 100%)
    interval = (f"t interval on the two-way variance, {sides} at {level}"
                if pilot.runs == "seeds" else f"exact McNemar test, {sides} at {level}"
                if args.test == "mcnemar" else
                f"{args.method} interval, {plural(args.n_resamples, 'resamples')}, {sides} "
                f"at {level}")
    how = "exact 0/1 path (multinomial tables)" if fast else "compare() on each"
    return (f"{drawn}{where} drawn from the pilot's {plural(pilot.n_units, unit)}{runs}, "
            f"{moved} (true B - A {shift.delta:+.4g}); {interval}; {how}")

"""compare(): one system against another on the same test set, with a bootstrap interval;
noise_floor(): two runs of the same build against each other (an A/A comparison)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pairboot.core.items import DEFAULT_TOP, check_top
from pairboot.core.pipeline import compare_items
from pairboot.core.score import refuse_score
from pairboot.errors import InputError
from pairboot.inputs.pairing import check_indexes
from pairboot.metrics import Metric, trials_metric
from pairboot.metrics.trials import NEEDS_SAMPLES
from pairboot.options import Arguments, Data, check_options
from pairboot.progress import Progress
from pairboot.results.compare import CompareResult

if TYPE_CHECKING:  # (the A/A result's type: imported where a floor is measured)
    from pairboot.results.noise import NoiseFloor


def compare(
    a,
    b,
    *,
    paired: bool = True,
    groups=None,
    group_weighting: str = "items",
    strata=None,
    strata_weights=None,
    metric: str | Metric = "mean",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    method: str = "percentile",
    alternative: str = "two-sided",
    hypothesis: str = "difference",
    margin: float | None = None,
    lower_is_better: bool = False,
    test: str | None = None,
    exact: bool | None = None,
    seed: int | str | None = None,
    resampling: str = "classic",
    ids=None,
    runs: str | None = None,
    paired_runs: bool = False,
    estimand: str = "population",
    backend: str = "auto",
    progress: Callable[[int], None] | Progress | None = None,
    top_items: int = DEFAULT_TOP,
    noise_floor=None,
) -> CompareResult:
    """Bootstrap confidence interval for the difference ``metric(b) - metric(a)``.

    The paired bootstrap of the spec: resample the test items (or whole groups, within
    strata) with replacement, with the *same* draws for both systems, recompute the
    metric of each system on every resample, and read the interval off the resampled
    differences.

    Parameters
    ----------
    a, b : array_like
        Per-item scores of systems A and B, paired by position: item ``i`` is the
        ``i``-th value of each, in the order passed.  1-D (one score per item, for
        ``metric="mean"``) or 2-D (items x sufficient statistics, e.g. the ``tp, fp,
        fn`` columns for ``metric="f1"``).  Lists, numpy arrays and pandas or polars
        Series/DataFrames are accepted; a DataFrame whose columns carry the metric's
        statistic names is read by name (other columns are left out), any other in
        column order.  A pandas index never re-pairs items: inputs (``groups``,
        ``strata`` and ``ids`` too) whose indexes hold the same labels at other
        positions are refused; pass ``b.reindex(a.index)`` to pair by label, or
        ``.reset_index(drop=True)`` to pair by position.  Two DataFrames with an id
        column are joined on it with ``ids="id"``; without ``ids``, a column both
        carry besides the scores that shows their rows are other items (ids or
        questions in another order) is refused, as for two files.
    paired : bool, default True
        ``False`` draws A's and B's items independently (the unpaired bootstrap, for
        contrast; then ``a`` and ``b`` may have different lengths).
    groups : array_like, optional
        One group label per item (document, conversation, user...).  Whole groups are
        resampled (the cluster bootstrap): items of a group are not independent.  A
        pandas ``Categorical`` (or category Series) is read as its labels, without a
        Python object per item.
    group_weighting : {"items", "groups"}
        With ``groups``: ``"items"`` estimates the mean over items (each drawn group
        carries the sum of its items' statistics and its item count); ``"groups"`` the
        mean of the group means (``metric="mean"`` only).  They differ when group sizes
        differ.
    strata : array_like, optional
        One stratum label per item (as for ``groups``): resampling is done within each
        stratum (groups kept whole inside their stratum) and the stratum differences are
        combined with ``strata_weights``.
    strata_weights : mapping, optional
        Population weight of every stratum (normalised).  Default: the sample shares,
        which reproduce the plain estimate.
    metric : str or Metric, default "mean"
        ``"mean"``, ``"ratio"``, ``"accuracy"`` or another built-in name (see
        :func:`pairboot.builtin_metrics`), or a :class:`pairboot.Metric`.  The metric is
        recomputed on every resample from the summed statistics.
    n_resamples : int, default 10_000
    confidence_level : float, default 0.95
    method : {"percentile", "basic", "normal", "bca", "studentized", "score"}
        ``percentile`` is the spec's.  ``bca`` corrects bias and skewness (acceleration
        from the jackknife over units); ``studentized`` is the bootstrap-t with a
        delta-method standard error per resample; both help for skewed or bounded
        metrics and small samples.  ``score``, for paired 0/1 scores (``metric="mean"``
        or ``"accuracy"``): Tango's score interval for B - A and Tango's score test as
        its p-value (against 0 or a margin's boundary), Wilson's interval for each
        system, with design effects for ``groups`` (docs/score.md); the bootstrap still
        gives ``standard_error`` and the replicates.  Refused for other scores, unpaired,
        strata, runs.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        As scipy's: ``"greater"`` tests B - A > 0 with the one-sided interval
        ``[low, inf)`` at ``confidence_level`` (its end is the two-sided interval's at
        ``1 - 2 alpha``) and its p-value; ``"less"`` B - A < 0 with ``(-inf, high]``.
    hypothesis : {"difference", "non-inferiority", "superiority", "equivalence"}
        What is tested (docs/decisions.md).  ``"difference"``: B - A against 0, by
        ``alternative``.  With a ``margin`` d: ``"non-inferiority"``, H0 B is worse
        than A by d or more (B - A <= -d), read off the one-sided interval on B's
        better side at ``confidence_level``; ``"superiority"``, H0 B - A <= d, the same
        interval; ``"equivalence"``, H0 |B - A| >= d, two one-sided tests (TOST), read
        off the two-sided interval at ``1 - 2 alpha`` (``result.interval_level``).  The
        p-value is the test's (TOST's: the larger of its two), below ``1 -
        confidence_level`` exactly when ``result.verdict()`` rejects.
    margin : float, optional
        The difference that matters, on the metric's scale (0.005 is half a point of
        accuracy), >= 0 and within the metric's range.  With ``"difference"`` it only
        says whether the test set could detect it (``result.detectable``).
    lower_is_better : bool, default False
        Lower scores are better (an error rate, a loss): B is better when B - A < 0,
        the margin's tests take that side, and the verdict reads so.
    test : {None, "mcnemar", "permutation"}
        A test reported beside the interval (``result.test``): ``"mcnemar"``, the exact
        McNemar test of 0/1 scores (and its mid-p), with the 2 x 2 table of agreements;
        ``"permutation"``, the paired permutation test (approximate randomization:
        ``n_resamples`` random swaps of A and B per unit, whole groups with ``groups``,
        the metric recomputed on the swapped sums; every swap when there are 20 units or
        fewer).  On ``alternative``'s sides; ``result.test_disagrees`` says when the
        test and the interval decide differently.  Refused where it does not hold:
        unpaired, runs, a margin's hypothesis; for McNemar also scores other than 0 and
        1, groups and strata.
    exact : bool, optional
        The permutation test's: ``True`` enumerates all ``2**n`` swaps of the n units
        (refused beyond 20 units: 2**20 swaps), ``False`` draws ``n_resamples`` random
        ones, None (default) enumerates when there are 20 units or fewer.
    seed : int or "random", optional
        Non-negative.  Without one, the seed is derived from a hash of the data and the
        options, so the same inputs give the same answer on every run; ``"random"``
        draws a fresh one.  Either way it is reported as ``result.seed``.  The same seed
        gives the same answer whatever the machine's thread count.
    resampling : {"classic", "poisson"}
        ``"classic"`` draws ``n`` units with replacement (the spec's bootstrap).
        ``"poisson"`` gives every unit an independent Poisson(1) weight that depends only
        on the seed, the unit's key and the replicate (Chamandy et al. 2012): the same
        answer for any order of the items, and what :mod:`pairboot.dask` and files
        larger than memory compute.  Its intervals agree with the classic ones within
        half a point of coverage from 50 units per stratum (docs/poisson.md; a warning
        says when there are fewer).
    ids : array_like or str, optional
        One id per item (text or integers; no two alike): the keys of the Poisson
        weights (default: the items' positions).  With ``groups``, a group's key is its
        label.  With ``"classic"`` they are only checked.  A column name: ``a`` and
        ``b`` are DataFrames holding that column, and B's rows are joined to A's on it
        (each id once in each, the same ids in both), as the command line's ``--id``;
        ``groups`` and ``strata`` are then in A's row order.
    runs : {None, "seeds", "samples"}
        Several runs per system: ``a`` and ``b`` are items x runs (the two may have
        different numbers of runs).  ``"seeds"``: separate training (or evaluation)
        runs that scored every item; the interval covers the run-to-run variation too
        (a t interval on the two-way variance, Satterthwaite's degrees of freedom).
        ``"samples"``: sampled generations per item (NaN where an item has fewer); the
        items' mean scores are compared.  ``result.runs`` holds the variance
        components and ``result.projection(n_items=, n_runs=)`` what more items or runs
        would give.  Pooled metrics take items x runs x statistics; with one run each, exactly
        the plain comparison.
    paired_runs : bool, default False
        With ``runs="seeds"``: run r of A and run r of B share their seed (or data
        order), so the run effect of the difference is what varies.
    estimand : {"population", "suite"}
        With ``runs="samples"`` (pass@1, or a metric of k trials): ``"population"``,
        the items are a sample of tasks (the item bootstrap of the per-item estimates,
        the trials' noise inside it); ``"suite"``, the test set is the whole population
        (a fixed regression suite): only the trials vary, a normal interval on
        ``sum_i w_i^2 (v_Ai + v_Bi)`` with ``v`` each item's unbiased variance of its
        estimate (docs/trials.md, "Two estimands").  ``result.estimand`` says which.
    backend : {"auto", "numba", "numpy"}
        The resampling kernel; ``auto`` uses numba when it is installed and the job is
        large enough to repay its start-up (a deterministic rule on the job's size).
        Both draw the same items; their sums differ only by rounding.
    progress : callable or Progress, optional
        Called as ``progress(done)`` with the number of finished resamples.  A
        :class:`pairboot.Progress` is also told, by its ``compiling()``, when numba is
        about to compile its kernel (the first large run after installing: about 10 s).
    top_items : int, default 5
        How many of the largest differences each way ``result.items_summary`` keeps
        (the items where B gains most and loses most; with ``groups``, also the
        groups), for a paired ``metric="mean"``; ``result.items()`` has every item.
    noise_floor : (base, rerun) or NoiseFloor, optional
        Two runs of A, the same build (as ``a``: the same items, and trials with
        ``runs="samples"``), compared with this comparison's design, or their
        :func:`pairboot.noise_floor` (measured on other items: then scaled by
        ``sqrt(its units / these units)``).  ``result.noise_floor`` says how far
        re-running alone moves B - A at this size, and every report states it beside
        the verdict (docs/trials.md, "The noise floor").

    Returns
    -------
    CompareResult

    Examples
    --------
    >>> import pairboot
    >>> a = [0.61, 0.42, 0.55, 0.70, 0.38, 0.49, 0.66, 0.58] * 5
    >>> b = [0.66, 0.45, 0.57, 0.74, 0.37, 0.55, 0.69, 0.61] * 5
    >>> res = pairboot.compare(a, b, seed=1)
    >>> round(res.estimate, 5)
    0.03125
    >>> res.excludes_zero
    True
    """
    args, data = check_options(locals())
    result = compare_two(a, b, args, data, top_items=check_top(top_items), stacklevel=3)
    if noise_floor is None:
        return result
    from pairboot.comparisons.noise import with_noise_floor

    return with_noise_floor(result, noise_floor, a, args, data, compare_two)


def noise_floor(
    base,
    rerun,
    *,
    paired: bool = True,
    groups=None,
    group_weighting: str = "items",
    strata=None,
    strata_weights=None,
    metric="mean",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    method: str = "percentile",
    alternative: str = "two-sided",
    seed: int | str | None = None,
    resampling: str = "classic",
    ids=None,
    runs: str | None = None,
    paired_runs: bool = False,
    estimand: str = "population",
    backend: str = "auto",
    progress: Callable[[int], None] | Progress | None = None,
) -> NoiseFloor:
    """How far re-running the same build alone moves a difference: the A/A comparison of
    two runs of one system, ``metric(rerun) - metric(base)``.

    Run the baseline twice (the same build, the same items, independently: other seeds
    or sampling, as a re-run of the evaluation would), and pass both runs.  The A/A
    interval moved to 0 (``result.floor``) is the range of differences re-running alone
    produces at this size; ``result.minimum_detectable`` the smallest true difference a
    test at this size detects with 80% power over that noise.  Pass the result (or the
    two runs) to ``compare(a, b, noise_floor=...)`` and its report states it beside the
    verdict, scaled to the comparison's size when that differs.

    Parameters
    ----------
    base, rerun : array_like
        The two runs' per-item scores, as compare()'s ``a`` and ``b`` (items x trials
        tables with ``runs="samples"``; the same number of trials in both).
    paired, groups, group_weighting, strata, strata_weights, metric, n_resamples, \
confidence_level, method, seed, resampling, ids, runs, paired_runs, estimand, backend, \
progress
        As :func:`pairboot.compare`'s: give the design the A/B comparison has.
    alternative : {"two-sided", "greater", "less"}
        The sides of the minimum detectable difference (the A/B test's); the A/A
        interval is always two-sided.

    Returns
    -------
    NoiseFloor

    Examples
    --------
    >>> import numpy as np, pairboot
    >>> rng = np.random.default_rng(0)
    >>> p = rng.beta(2, 2, size=200)                    # each task's success rate
    >>> base = (rng.random((200, 4)) < p[:, None]) * 1.0
    >>> rerun = (rng.random((200, 4)) < p[:, None]) * 1.0
    >>> floor = pairboot.noise_floor(base, rerun, runs="samples", seed=1)
    >>> round(floor.half_width, 3), floor.rejects
    (0.042, False)
    """
    from pairboot.comparisons.noise import measure

    args, data = check_options(locals())
    return measure(base, rerun, args, data, compare_two, names=("base", "rerun"),
                   stacklevel=4)


def compare_two(a, b, args: Arguments, data: Data, *, top_items: int | None = None,
                stacklevel: int = 2) -> CompareResult:
    """compare()'s answer on checked options: several runs per system to
    :mod:`pairboot.comparisons.runs`, one to the pipeline; notes are warned
    ``stacklevel`` frames up.  The planner's simulation runs it too."""
    refuse_trials(args, data)
    refuse_suite(args)
    if args.runs is not None or args.paired_runs:
        if args.test is not None and not (  # (pass^k ...: one estimate per item)
                args.test == "permutation" and args.runs == "samples"
                and trials_metric(data.metric) is not None):
            why = ("seeds (and samples) are not exchangeable across systems"
                   if args.test == "permutation" else "it compares one run per system")
            raise InputError(f"`test={args.test!r}` with `runs`: {why}", param="test")
        refuse_score(args.method, "with `runs`", "the score interval takes one 0/1 score "
                     "per item and system, not several runs")
        from pairboot.comparisons.runs.flaky import with_flaky
        from pairboot.comparisons.runs.two import compare_runs

        if args.runs is None:
            raise InputError("`paired_runs` needs `runs='seeds'`", param="paired_runs")
        check_indexes([("a", a), ("b", b)], [("groups", data.groups),
                                             ("strata", data.strata), ("ids", data.ids)])
        return with_flaky(compare_runs(a, b, args, data, stacklevel=stacklevel + 1,
                                       top_items=top_items), a, b, args, data, top_items)
    return compare_items(a, b, args, data, stacklevel=stacklevel + 1, top_items=top_items)


def refuse_suite(args: Arguments) -> None:
    """``estimand="suite"`` reads every item's trials: it needs ``runs="samples"``."""
    if args.estimand == "suite" and args.runs != "samples":
        raise InputError("`estimand='suite'` needs `runs='samples'` (every item's trials: "
                         "only they vary in a fixed suite)", param="estimand")


def refuse_trials(args: Arguments, data: Data) -> None:
    """A metric of k trials (``"pass^4"``) without ``runs``: refused before the scores
    are read (it needs each item's trials)."""
    trials = trials_metric(data.metric) if args.runs is None else None
    if trials is not None:
        raise InputError(f"`metric='{trials.name}'` needs {NEEDS_SAMPLES}", param="metric")

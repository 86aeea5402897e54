"""compare_many(): a family of comparisons among M systems on one set of draws."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from pairboot.comparisons.two import refuse_suite, refuse_trials
from pairboot.core.family import compare_family, family_result, family_systems
from pairboot.core.pipeline import resample
from pairboot.core.score import refuse_score
from pairboot.errors import InputError
from pairboot.inputs.pairing import check_indexes, frame_ids
from pairboot.metrics import Metric, trials_metric
from pairboot.options import check_options
from pairboot.progress import Progress
from pairboot.results.family import FamilyResult


def compare_many(
    scores,
    *,
    baseline: str | None = None,
    pairs: Sequence[tuple[str, str]] | None = None,
    correction: str = "max-t",
    lower_is_better: bool = False,
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
    margin=None,
    test: str | None = None,
    exact: bool | None = None,
    seed=None,
    resampling: str = "classic",
    ids=None,
    runs: str | None = None,
    paired_runs: bool = False,
    estimand: str = "population",
    backend: str = "auto",
    progress: Callable[[int], None] | Progress | None = None,
) -> FamilyResult:
    """Many comparisons, decided in advance, on shared draws, with the family-wise error
    rate controlled.

    One draw of units per resample serves every system, so every comparison is read
    off the same resamples and their joint distribution is known.

    Parameters
    ----------
    scores : mapping or DataFrame
        ``name -> per-item scores`` (1-D, or items x statistics for pooled metrics), or
        a DataFrame with one column per system; paired by position, in the order
        passed (pandas indexes never re-pair items: as for :func:`pairboot.compare`).
        A DataFrame's column that looks like item ids (named like them, text, or the
        numbers 0..n-1 or 1..n each once) is refused as a system: give it as ``ids``.
    baseline : str, optional
        Compare every other system with it (``b - baseline``).
    pairs : sequence of (a, b), optional
        The comparisons (``b - a``).  Neither ``baseline`` nor ``pairs``: all pairs, in
        the systems' order.
    correction : {"max-t", "holm", "bonferroni", "bh", "by", "none"}
        ``"max-t"``: simultaneous intervals ``estimate +- c se`` with ``c`` the
        ``1 - alpha`` quantile of the largest standardised root over the family, and
        Romano-Wolf stepdown p-values (``p_single_step`` too).  ``"holm"``: Holm's
        adjusted p-values with Bonferroni intervals (each comparison's ``method``
        interval at level ``1 - alpha / m``).  ``"bonferroni"``: the same intervals and
        ``min(1, m p)`` (``p`` at least ``1 / (n_resamples + 1)``).  ``"none"``: each
        comparison as :func:`pairboot.compare` gives it.  A family of one comparison is
        :func:`pairboot.compare`'s answer under every correction.  ``"bh"`` and
        ``"by"`` control the false discovery rate instead (Benjamini-Hochberg, for
        independent or positively dependent rows; Benjamini-Yekutieli, under any
        dependence): ``p_adjusted`` are q-values, and the intervals are the
        false-coverage-rate adjusted ones (Benjamini & Yekutieli 2005: each row's
        interval at ``1 - R q / m`` for R discoveries, ``result.fcr_level``).
    lower_is_better : bool
        The metric is an error rate or a loss: for rank intervals and the best set,
        the verdicts and a margin's sides.
    hypothesis, margin
        As for :func:`pairboot.compare`, for every row; ``margin`` one number, or a
        mapping ``{(a, b): margin}`` with every comparison of the family.  Max-t tests
        each row against its boundary on the same roots (for equivalence, the
        two-sided simultaneous interval at the level, within +-margin).
    ids : array_like or str, optional
        As for :func:`pairboot.compare`; a column name is a column of the DataFrame
        ``scores`` (the items' ids, not a system), or of every system's DataFrame (their
        rows joined on it).
    paired, groups, group_weighting, strata, strata_weights, metric, n_resamples,
    confidence_level, method, seed, resampling, backend, progress
        As for :func:`pairboot.compare`.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        As for :func:`pairboot.compare`, for every row: one-sided intervals and
        p-values, Holm and Bonferroni on the one-sided p-values, max-t on the signed
        maximum of the rows' roots (``"greater"``: simultaneous lower bounds).
    test : {None, "permutation"}
        ``"permutation"``: Westfall and Young's max-T permutation test beside the
        intervals (``result.test``, and every row's ``test_p_value`` and
        ``test_p_adjusted``): in each of ``n_resamples`` permutations every unit (item,
        or whole group) relabels the M systems at random, the metric is recomputed, and
        a row's adjusted p is the free stepdown over the maxima of the family's ``|T*|``
        (docs/tests.md: what the null assumes).  Two systems: the two-system test.
    exact : bool, optional
        The permutation test's: every relabelling ((M!)**n of them, at most 2**20), or
        random ones; None decides by their number.
    runs, paired_runs
        Several runs per system (items x runs each, see :func:`pairboot.compare`):
        ``"samples"`` compares the items' means under every correction; ``"seeds"``
        gives each comparison's t interval on the two-way variance, corrected by Holm or
        Bonferroni (max-t is not available with seeds yet).  As for :func:`pairboot.compare`.
    estimand : {"population", "suite"}
        With ``runs="samples"``: ``"suite"`` gives every comparison the fixed-suite
        normal interval (:func:`pairboot.compare`'s, only the trials varying), and the
        corrections read those (max-t on the rows' exact normal correlation, which
        comes from the systems they share; docs/trials.md).

    Returns
    -------
    FamilyResult

    Examples
    --------
    >>> import numpy as np, pairboot
    >>> rng = np.random.default_rng(0)
    >>> base = rng.random(300)
    >>> scores = {"base": base, "v1": base + rng.normal(0.05, 0.05, 300),
    ...           "v2": base + rng.normal(0.0, 0.05, 300)}
    >>> res = pairboot.compare_many(scores, baseline="base", seed=1)
    >>> [(c.b, c.significant) for c in res.comparisons]
    [('v1', True), ('v2', False)]
    """
    args, data = check_options(locals(), family=True)
    refuse_score(args.method, "for a family of comparisons", FAMILY_SCORE)
    scores, ids = frame_ids(scores, data.ids)
    data = dataclasses.replace(data, ids=ids)
    refuse_trials(args, data)
    refuse_suite(args)
    if (args.runs is not None or args.paired_runs) and args.test is not None and not (
            args.test == "permutation" and args.runs == "samples"
            and trials_metric(data.metric) is not None):  # (pass^k: one score per item)
        raise InputError("`test='permutation'` with `runs`: seeds (and samples) are not "
                         "exchangeable across systems", param="test")
    if args.test == "mcnemar":
        raise InputError("`test='mcnemar'` compares two systems: use compare(), or "
                         "`test='permutation'` for a family", param="test")
    if args.runs is not None or args.paired_runs:
        from pairboot.comparisons.runs.family import compare_many_runs

        if args.runs is None:
            raise InputError("`paired_runs` needs `runs='seeds'`", param="paired_runs")
        names, systems = family_systems(scores, minimum=1)
        check_indexes(list(zip(names, systems)), [("groups", data.groups),
                                                  ("strata", data.strata), ("ids", ids)])
        if args.estimand == "suite":
            from pairboot.comparisons.runs.suite_family import compare_many_suite

            return compare_many_suite(scores, args, data, stacklevel=3)
        return compare_many_runs(scores, args, data, stacklevel=3)
    return compare_family(scores, args, data, stacklevel=3)


def compare_strata(
    a,
    b,
    *,
    strata,
    names: tuple[str, str] = ("A", "B"),
    correction: str = "max-t",
    lower_is_better: bool = False,
    paired: bool = True,
    groups=None,
    group_weighting: str = "items",
    strata_weights=None,
    metric: str | Metric = "mean",
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    method: str = "percentile",
    alternative: str = "two-sided",
    hypothesis: str = "difference",
    margin: float | None = None,
    test: str | None = None,
    exact: bool | None = None,
    seed=None,
    resampling: str = "classic",
    ids=None,
    backend: str = "auto",
    progress: Callable[[int], None] | Progress | None = None,
) -> FamilyResult:
    """Each stratum's difference ``B - A`` as a family of comparisons, decided in
    advance, with the family-wise error rate controlled (the tasks of a benchmark suite,
    the subjects of MMLU).

    One stratified resampling (as :func:`pairboot.compare` with ``strata``) gives every
    stratum's difference on the same replicates; the strata are drawn independently, so
    max-t's largest root over the strata has the joint law it needs.  Rows are named
    ``"B [stratum] - A [stratum]"``; ``correction`` and the other keywords as for
    :func:`pairboot.compare_many` and :func:`pairboot.compare` (``test`` and ``exact``
    are refused: the test of the combined difference is ``compare(..., strata=...,
    test="permutation")``).

    >>> import pairboot
    >>> a = [0.2, 0.5, 0.4, 0.7, 0.3, 0.6] * 20
    >>> b = [0.3, 0.6, 0.4, 0.9, 0.3, 0.6] * 20
    >>> fam = pairboot.compare_strata(a, b, strata=["x", "x", "y", "y", "z", "z"] * 20, seed=1)
    >>> [(c.b, c.significant) for c in fam.comparisons]
    [('B [x]', True), ('B [y]', True), ('B [z]', False)]
    """
    for name, value in (("test", test), ("exact", exact)):
        if value is not None:
            raise InputError(f"`{name}` is not available for a family of strata: use "
                             "compare(..., strata=..., test='permutation') for the test of "
                             "the combined difference", param=name)
    args, data = check_options(locals())
    if strata is None:
        raise InputError("`strata` is required: the family is one comparison per stratum",
                         param="strata")
    refuse_score(args.method, "for a family of strata", FAMILY_SCORE)
    run = resample((a, b), args, dataclasses.replace(data, names=tuple(names)))
    n_strata = run.design.n_strata
    return family_result(run, [(0, 1)] * n_strata, stacklevel=3,
                         within=list(range(n_strata)))


FAMILY_SCORE = ("a family's simultaneous intervals and adjusted p-values (max-t, Holm, "
                "...) are read off the comparisons' joint replicates")
"""Why a family refuses ``method="score"``."""

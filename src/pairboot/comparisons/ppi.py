"""compare_ppi(): B - A of the gold metric from a judge's scores on every item and gold
labels on a random subset (prediction-powered inference); compare_ppi_many(): a family
of such comparisons among M systems, on one set of draws."""

from __future__ import annotations

from collections.abc import Callable

from pairboot.core.ppi import check_lam, check_ppi_method, compare_ppi_items
from pairboot.options import check_options
from pairboot.progress import Progress
from pairboot.results.ppi import PPIFamilyResult, PPIResult


def compare_ppi(
    judge_a,
    judge_b,
    *,
    gold_a,
    gold_b,
    groups=None,
    strata=None,
    strata_weights=None,
    metric="mean",
    runs: str | None = None,
    lam: float | None = None,
    clip: bool = True,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    method: str = "percentile",
    alternative: str = "two-sided",
    hypothesis: str = "difference",
    margin: float | None = None,
    lower_is_better: bool = False,
    seed: int | str | None = None,
    backend: str = "auto",
    progress: Callable[[int], None] | Progress | None = None,
) -> PPIResult:
    """Interval for ``B - A`` of the gold metric's mean when a judge (a model, an
    automatic metric) scored every item and people (gold) scored a random subset.

    Prediction-powered inference (PPI++, Angelopoulos et al. 2023, 2024): the gold
    labels' B - A, corrected by how far the judge's B - A on the unlabelled items lies
    from its B - A on the labelled ones, weighted by ``lam`` tuned on the data (0: the
    gold labels alone, 1: classic PPI).  Valid whatever the judge's errors, and narrower
    than the gold labels alone when the judge tracks them (``result.effective_gold``:
    how many gold labels it is worth).  The report shows the judge-only (biased),
    gold-only and prediction-powered estimates side by side, each system's corrected
    score, and the judge's bias (gold - judge) with its interval (docs/judges.md).

    The gold subset must be a random sample of the items (uniform, drawn before any
    score was seen): a subset chosen by the scores (the disagreements, the hard items)
    breaks the guarantee, and nothing in the data can show it.

    Parameters
    ----------
    judge_a, judge_b : array_like
        The judge's score of A's and of B's output for every item, paired by position
        (no NaN: the judge scores every item); items x statistics for a pooled
        ``metric``, items x calls with ``runs="samples"`` (items x calls x statistics
        for both).
    gold_a, gold_b : array_like
        The gold scores, NaN where the item is unlabelled (items x statistics for a
        pooled metric, a row of NaN); an item is labelled for both systems or for
        neither.  At least 2 labelled and 2 unlabelled items (tens for a useful
        interval).
    groups : array_like, optional
        One group label per item (document, conversation): whole groups are resampled,
        and the closed form's variance sums each group's influence.  Groups labelled
        whole or not at all are two strata of the bootstrap; groups with labelled and
        unlabelled items are drawn as one.
    strata : array_like, optional
        One stratum label per item, when the gold labels were drawn stratum by stratum
        (more where the judge is less sure): each stratum's estimate from its own
        labelled and unlabelled items, combined with ``strata_weights``; one ``lam``
        for all, the one that makes the combined variance smallest.  Each stratum needs
        2 labelled and 2 unlabelled items.
    strata_weights : mapping, optional
        Every stratum's population weight (normalised); default the strata's shares of
        the items, which estimate the mean over all items whatever share of each was
        labelled.
    metric : str or Metric, default "mean"
        As for :func:`pairboot.compare`.  A pooled metric (``"f1"`` from per-item tp,
        fp, fn; ``"accuracy"``, ``"ratio"``, a :class:`pairboot.Metric`) is corrected
        count by count: each summed statistic's mean is prediction-powered, one
        ``lam`` for all of them (tuned on the metric's linearisation), and the metric
        recomputed from the corrected means, in every resample too; the closed form's
        standard error is the delta method's.
    runs : {None, "samples"}
        ``"samples"``: the judge scored every item several times (``judge_a`` and
        ``judge_b`` items x calls, NaN where an item has fewer calls); an item's judge
        score is the mean of its calls and the item stays the unit.
        ``result.judge_calls`` reports the calls and their within-item spread.
    lam : float, optional
        A fixed power-tuning weight (0: the gold labels alone; 1: classic PPI); default
        tuned from the data (PPI++), for B - A on the per-item differences and for
        each system's score on its own.  Any fixed weight keeps the interval valid.
    clip : bool, default True
        Keep the tuned weight within [0, 1], as ppi_py does: right when the judge
        predicts the gold score on the gold's scale.  ``False`` for a judge on another
        scale (chrF in [0, 1] against MQM in [-25, 0]), whose best weight may lie far
        above 1.
    method : {"percentile", "basic", "normal", "clt"}
        The bootstrap's intervals (PPBoot: the labelled and the unlabelled units drawn
        as two strata, the same draws for A, B and every estimate), or ``"clt"``,
        PPI++'s closed-form normal interval (ppi_py's ``ppi_mean_ci`` for each system).
    n_resamples, confidence_level, alternative, hypothesis, margin, lower_is_better
        As for :func:`pairboot.compare`; the hypothesis is read off the
        prediction-powered interval.
    seed, backend, progress
        As for :func:`pairboot.compare`.

    Returns
    -------
    PPIResult

    Examples
    --------
    >>> import numpy as np, pairboot
    >>> rng = np.random.default_rng(0)
    >>> quality = rng.normal(0.5, 0.2, (400, 2)) + [0.0, 0.05]
    >>> judge = quality + 0.1 + rng.normal(0, 0.05, (400, 2))
    >>> gold = np.where(rng.random(400)[:, None] < 0.25, quality, np.nan)
    >>> res = pairboot.compare_ppi(judge[:, 0], judge[:, 1], gold_a=gold[:, 0],
    ...                            gold_b=gold[:, 1], seed=1, n_resamples=2000)
    >>> res.n_gold, round(res.lam, 2), res.effective_gold > res.n_gold
    (117, 0.6, True)
    """
    method = check_ppi_method(method)
    lam, clip = check_lam(lam, clip)
    args, data = check_options(dict(
        groups=groups, strata=strata, strata_weights=strata_weights, metric=metric,
        runs=runs, n_resamples=n_resamples, confidence_level=confidence_level,
        method="normal" if method == "clt" else method, alternative=alternative,
        hypothesis=hypothesis, margin=margin, lower_is_better=lower_is_better, seed=seed,
        backend=backend, progress=progress))
    return compare_ppi_items(judge_a, judge_b, gold_a, gold_b, args, data, method,
                             lam=lam, clip=clip, stacklevel=2)


def compare_ppi_many(
    judge,
    gold,
    *,
    baseline: str | None = None,
    pairs=None,
    correction: str = "max-t",
    groups=None,
    strata=None,
    strata_weights=None,
    metric="mean",
    runs: str | None = None,
    lam: float | None = None,
    clip: bool = True,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    method: str = "percentile",
    alternative: str = "two-sided",
    lower_is_better: bool = False,
    seed: int | str | None = None,
    backend: str = "auto",
    progress: Callable[[int], None] | Progress | None = None,
) -> PPIFamilyResult:
    """A family of prediction-powered comparisons among M systems: the judge scored
    every system's output on every item, people a random subset of the items (every
    system's output there), and every comparison's gold-metric difference is corrected
    as :func:`compare_ppi` corrects B - A, on one set of draws.

    With ``correction="max-t"`` (default) the intervals are simultaneous: ``estimate
    +- c se``, ``c`` the quantile of the largest standardised root over the family
    from the joint PPBoot resamples (as :func:`pairboot.compare_many`'s max-t), with
    single-step p-values (as the intervals) and Romano-Wolf's stepdown ones;
    ``"bonferroni"``: each interval at ``alpha / m`` (the closed form's too);
    ``"none"``: each comparison's own.  A family of two
    systems is :func:`compare_ppi`'s answer.

    Parameters
    ----------
    judge, gold : mapping or DataFrame
        ``name -> per-item scores`` (as :func:`compare_ppi`'s ``judge_a`` and
        ``gold_a``: items x statistics for a pooled ``metric``, items x calls with
        ``runs="samples"``), or DataFrames with one column per system; ``gold`` NaN
        where an item is unlabelled, for every system or none, and names the same
        systems as ``judge``.
    baseline, pairs
        As :func:`pairboot.compare_many`'s: every system against ``baseline``, the
        ``pairs`` listed, or (neither) all pairs.
    correction : {"max-t", "bonferroni", "none"}
    groups, strata, strata_weights, metric, runs, lam, clip, n_resamples,
    confidence_level, method, alternative, lower_is_better, seed, backend, progress
        As :func:`compare_ppi`'s (``lam`` fixed for every comparison and system).

    Returns
    -------
    PPIFamilyResult
    """
    from pairboot.core.ppi_family import compare_ppi_family  # (a family's machinery)

    method = check_ppi_method(method)
    lam, clip = check_lam(lam, clip)
    args, data = check_options(dict(
        groups=groups, strata=strata, strata_weights=strata_weights, metric=metric,
        runs=runs, baseline=baseline, pairs=pairs, n_resamples=n_resamples,
        confidence_level=confidence_level, method="normal" if method == "clt" else method,
        alternative=alternative, lower_is_better=lower_is_better, seed=seed,
        backend=backend, progress=progress), family=True)
    return compare_ppi_family(judge, gold, args, data, method, correction=correction,
                              lam=lam, clip=clip, stacklevel=2)

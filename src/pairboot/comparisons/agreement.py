"""agreement(): how far two raters -- a judge and people, or two judges -- agree on the
same items, with bootstrap intervals."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pairboot.core.agreement import agreement_of, check_statistics
from pairboot.options import check_options
from pairboot.progress import Progress
from pairboot.results.agreement import AgreementResult


def agreement(
    rater_a,
    rater_b,
    *,
    statistics: str | Sequence[str] = ("kappa", "ac1", "alpha-nominal"),
    categories=None,
    groups=None,
    n_resamples: int = 10_000,
    confidence_level: float = 0.95,
    method: str = "percentile",
    seed: int | str | None = None,
    backend: str = "auto",
    progress: Callable[[int], None] | Progress | None = None,
) -> AgreementResult:
    """Agreement of two raters' ratings of the same items (categories: verdicts, 1-5
    scores), each statistic with a bootstrap interval on the same resamples of the
    items (whole groups with ``groups``).

    Parameters
    ----------
    rater_a, rater_b : array_like
        One rating per item, paired by position (numbers or text; no missing rating).
    statistics : str or sequence of str
        Among ``"kappa"`` (Cohen's), ``"kappa-linear"``, ``"kappa-quadratic"`` (weighted
        by the categories' ranks, for ordinal scales: scikit-learn's
        ``cohen_kappa_score``), ``"ac1"`` (Gwet's, which the prevalence of one category
        does not drag down as it does kappa), ``"alpha-nominal"``, ``"alpha-ordinal"``,
        ``"alpha-interval"`` (Krippendorff's, as the ``krippendorff`` package), and for
        0/1 verdicts ``"accuracy"``, ``"sensitivity"`` and ``"specificity"`` of the
        first rater against the second (the judge against people: the second category
        is the positive one).
    categories : sequence, optional
        The categories in order (default: the ratings seen, sorted); a scale's unused
        points belong here (they change AC1 and the weights).
    groups : array_like, optional
        One group label per item: whole groups are resampled.
    n_resamples, confidence_level, seed, backend, progress
        As for :func:`pairboot.compare`.
    method : {"percentile", "basic", "normal"}

    Returns
    -------
    AgreementResult

    Examples
    --------
    >>> import pairboot
    >>> judge = [1, 1, 0, 1, 0, 1, 1, 0, 1, 1] * 10
    >>> human = [1, 1, 0, 1, 1, 1, 0, 0, 1, 1] * 10
    >>> res = pairboot.agreement(judge, human, statistics=("kappa", "accuracy"), seed=1,
    ...                          n_resamples=2000)
    >>> round(res["kappa"].estimate, 3), res["accuracy"].estimate
    (0.524, 0.8)
    """
    names = check_statistics(statistics, method)
    args, data = check_options(dict(groups=groups, n_resamples=n_resamples,
                                    confidence_level=confidence_level, method=method,
                                    seed=seed, backend=backend, progress=progress))
    return agreement_of(rater_a, rater_b, names, categories, args, data)

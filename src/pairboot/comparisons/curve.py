"""trials_curve(): pass@k or pass^k of two systems over k, on one bootstrap of the items.

Each k's per-item unbiased estimates (:class:`pairboot.metrics.trials.Trials`) of both
systems become the systems ``"A k=1"``, ``"B k=1"``, ... of one family (the pipeline of
:func:`compare_many`) whose comparisons are ``B k - A k`` under max-t: one draw of the items serves
every k and both systems (the same draws as :func:`pairboot.compare`'s with
``runs="samples", metric="pass^k"`` and the same seed: the same estimates and standard
errors).  Max-t's rows are bootstrap-t intervals on those draws: the simultaneous one
``estimate +- c se`` with ``c`` the quantile of the largest root over the ks, the
pointwise one ``estimate +- c_k se`` with ``c_k`` the row's own quantile, so the
pointwise interval lies inside the simultaneous one at every k; it is symmetric, and
so differs slightly from compare()'s percentile interval.  Each system's own interval
is the ``method``'s (compare()'s ``score_a``, ``score_b``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from pairboot.comparisons.many import FAMILY_SCORE
from pairboot.comparisons.runs.analysis import as_table
from pairboot.core.design import as_floats
from pairboot.core.family import compare_family
from pairboot.core.score import refuse_score
from pairboot.errors import InputError
from pairboot.metrics.trials import Trials
from pairboot.options import check_options
from pairboot.results.family import CurvePoint, TrialsCurve

KINDS = {"pass^k": "pass^", "pass@k": "pass@"}


def _table(x, name: str) -> np.ndarray:
    """A system's items x trials table, 2-D and not empty, checked as compare(...,
    runs="samples") checks its trials (:func:`~pairboot.comparisons.runs.analysis.
    as_table`: numbers, none infinite, every item a trial)."""
    y = as_floats(x, name)
    if y.ndim != 2 or y.shape[0] == 0 or y.shape[1] == 0:
        raise InputError(f"`{name}` must be an items x trials table (2-D, not empty), got "
                         f"shape {y.shape}", param=name)
    return as_table(y, name, "samples")


SYMMETRIC_FIX = ("both the pointwise and the simultaneous intervals of B - A are read off "
                 "its roots; for a k's interval by the method, give that k alone (`ks`)")
"""What the curve's note on skewed differences advises: a curve has no correction to
choose, and its intervals of B - A over several ks are max-t's, pointwise ones too."""


def _ks(ks, most: int) -> list[int]:
    if ks is None:
        return list(range(1, most + 1))
    ks = [ks] if isinstance(ks, (int, np.integer)) else list(ks)
    if not ks or any(isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1
                     for k in ks) or len(set(ks)) != len(ks):
        raise InputError(f"`ks` must be distinct whole numbers >= 1, got {ks!r}", param="ks")
    return [int(k) for k in ks]


def trials_curve(
    a,
    b,
    *,
    kind: str = "pass^k",
    ks: Sequence[int] | None = None,
    names: tuple[str, str] = ("A", "B"),
    confidence_level: float = 0.95,
    n_resamples: int = 10_000,
    method: str = "percentile",
    seed=None,
    ids=None,
) -> TrialsCurve:
    """pass^k (or pass@k) of two systems for each k, with pointwise intervals for each
    system and for ``B - A``, and simultaneous (max-t) intervals for ``B - A`` over the
    ks, all from one bootstrap of the items.

    Parameters
    ----------
    a, b : array_like
        Items x trials tables of 0/1 outcomes (NaN where an item has fewer trials),
        paired by row, as ``compare(..., runs="samples")`` takes.
    kind : {"pass^k", "pass@k"}
    ks : sequence of int, optional
        The ks; default ``1 ... n``, n the fewest trials of any item in either table.
        A k above an item's trials is refused, naming the item.
    names, confidence_level, n_resamples, method, seed, ids
        As for :func:`pairboot.compare` (``ids`` name the items in errors).

    Returns
    -------
    TrialsCurve

    Examples
    --------
    >>> import numpy as np, pairboot
    >>> rng = np.random.default_rng(0)
    >>> p = rng.beta(2, 2, 200)[:, None]
    >>> a, b = (rng.random((200, 4)) < p) * 1.0, (rng.random((200, 4)) < p + 0.1) * 1.0
    >>> res = pairboot.trials_curve(a, b, seed=1, n_resamples=999)
    >>> res.ks, all(pt.simultaneous.low <= pt.interval.low for pt in res.points)
    ((1, 2, 3, 4), True)
    """
    if kind not in KINDS:
        raise InputError(f"`kind` is one of {', '.join(map(repr, KINDS))}, got {kind!r}",
                         param="kind")
    ya, yb = _table(a, "a"), _table(b, "b")
    if len(ya) != len(yb):
        raise InputError(f"`a` has {len(ya)} items and `b` {len(yb)}: the tables pair "
                         "items by row", param="b")
    fewest = int(min((~np.isnan(ya)).sum(axis=1).min(), (~np.isnan(yb)).sum(axis=1).min()))
    ks = _ks(ks, fewest)
    na, nb = (str(n) for n in names)
    scores, pairs = {}, []
    for k in ks:
        metric = Trials(KINDS[kind], k)
        scores[f"{na} k={k}"] = metric.values(ya, "a", ids)
        scores[f"{nb} k={k}"] = metric.values(yb, "b", ids)
        pairs.append((f"{na} k={k}", f"{nb} k={k}"))
    # the family's own pipeline (an entry point never calls another: core's, checked once)
    args, data = check_options(dict(pairs=pairs, correction="max-t", method=method,
                                    confidence_level=confidence_level,
                                    n_resamples=n_resamples, seed=seed), family=True)
    refuse_score(args.method, "for a curve's simultaneous intervals", FAMILY_SCORE)
    fam = compare_family(scores, args, data, stacklevel=3, symmetric_fix=SYMMETRIC_FIX)
    points = tuple(
        CurvePoint(k=k, a=fam.systems[c.a], b=fam.systems[c.b], difference=c.estimate,
                   interval=c.marginal_interval, simultaneous=c.confidence_interval,
                   standard_error=c.standard_error, p_value=c.p_value,
                   p_adjusted=c.p_adjusted)
        for k, c in zip(ks, fam.comparisons))
    return TrialsCurve(kind=kind, points=points, names=(na, nb),
                       critical_value=fam.critical_value, confidence_level=confidence_level,
                       n_resamples=fam.n_resamples, seed=fam.seed, method=fam.method,
                       n_items=len(ya), version=fam.version, warnings=fam.warnings)

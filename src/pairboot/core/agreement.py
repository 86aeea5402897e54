"""Agreement of two raters (:func:`pairboot.agreement`): every statistic of
:mod:`pairboot.stats.agreement` on the items' table of counts, and its bootstrap.

A unit (an item, or a group of items) carries its one-hot cell of the ``k x k`` table
(a group: its items' cells summed); the engine draws the units with replacement and
sums them into one table per resample, the same tables for every statistic.
"""

from __future__ import annotations

import hashlib
import math

import numpy as np

from pairboot._version import __version__
from pairboot.engine import DrawPlan, resample_sums
from pairboot.errors import InputError
from pairboot.inputs.gold import check_ratings
from pairboot.inputs.labels import item_labels
from pairboot.options import Arguments, Data
from pairboot.results.agreement import AgreementResult, AgreementRow
from pairboot.results.compare import ConfidenceInterval
from pairboot.stats.agreement import STATISTICS, agreement_statistic
from pairboot.stats.intervals import Bootstrap, bounds

__all__ = ["AGREEMENT_METHODS", "agreement_of", "check_statistics"]

AGREEMENT_METHODS = ("percentile", "basic", "normal")

_BINARY = ("accuracy", "sensitivity", "specificity")


def check_statistics(statistics, method) -> tuple[str, ...]:
    """The statistics asked for (a name or a sequence of names), and the method."""
    names = (statistics,) if isinstance(statistics, str) else tuple(statistics)
    bad = [s for s in names if s not in STATISTICS]
    if not names or bad:
        raise InputError(f"`statistics` are among {', '.join(STATISTICS)}, got "
                         f"{bad[0] if bad else 'none'!r}", param="statistics")
    if method not in AGREEMENT_METHODS:
        raise InputError(f"`method` of an agreement is one of {', '.join(AGREEMENT_METHODS)}"
                         f", got {method!r}", param="method")
    return names


def agreement_of(rater_a, rater_b, statistics: tuple[str, ...], categories,
                 args: Arguments, data: Data) -> AgreementResult:
    """The agreement's answer on checked options."""
    a, b, cats = check_ratings(rater_a, rater_b, categories)
    k, n = len(cats), len(a)
    if any(s in _BINARY for s in statistics) and k != 2:
        raise InputError(f"accuracy, sensitivity and specificity read 0/1 verdicts: {k} "
                         "categories given (the second category is the positive one)",
                         param="statistics")
    if any(s == "alpha-interval" for s in statistics) and not all(
            isinstance(c, (int, float)) and not isinstance(c, bool) for c in cats):
        raise InputError("`statistics` 'alpha-interval' needs numeric categories",
                         param="statistics")
    values = np.array([float(c) if isinstance(c, (int, float)) else math.nan
                       for c in cats])
    x = np.zeros((n, k * k))
    x[np.arange(n), a * k + b] = 1.0
    n_groups = None
    if data.groups is not None:
        codes, names = item_labels(data.groups, "groups", n)
        n_groups = len(names)
        x = np.stack([np.bincount(codes, weights=x[:, c], minlength=n_groups)
                      for c in range(k * k)], axis=1)
    table = x.sum(axis=0).reshape(k, k)
    plan = DrawPlan.from_columns(x, [0], [len(x)])
    seed = args.seed if args.seed is not None else _seed(x, statistics, args)
    sums, _ = resample_sums(plan, args.n_resamples, seed, backend=args.backend,
                            progress=args.progress)
    tables = sums[:, 0, :].reshape(-1, k, k)
    alpha = 1.0 - args.confidence_level
    rows, dists = [], {}
    for name in statistics:
        estimate = float(agreement_statistic(name, table, values))
        theta = agreement_statistic(name, tables, values)
        dists[name] = theta
        finite = theta[np.isfinite(theta)]
        if math.isfinite(estimate) and len(finite) > 1:
            boot = Bootstrap.from_replicates(estimate, finite)
            low, high = bounds(args.method, boot, alpha)
            se = boot.sd
        else:
            low = high = se = math.nan
        rows.append(AgreementRow(name, estimate, ConfidenceInterval(low, high), se))
    return AgreementResult(
        rows=tuple(rows), categories=tuple(cats),
        table=tuple(tuple(int(v) for v in r) for r in table), n_items=n,
        n_groups=n_groups, confidence_level=args.confidence_level, method=args.method,
        n_resamples=args.n_resamples, seed=int(seed), version=__version__,
        bootstrap_distributions=dists)


def _seed(x: np.ndarray, statistics, args: Arguments) -> int:
    """The seed given none: a hash of the units and the resamples."""
    h = hashlib.blake2b(digest_size=8, person=b"pairboot-agree")
    h.update(str(x.shape).encode())
    h.update(np.ascontiguousarray(x, dtype="<f8").tobytes())
    h.update(f"{args.n_resamples}".encode())
    return int.from_bytes(h.digest(), "little") % 2**32

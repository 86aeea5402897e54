"""Repeated trials on parts (``runs="samples"``): each item's trials become its one
estimate before the sums.

A metric of k trials (pass@k, pass^k, maj@k) is the mean over items of every item's
unbiased estimate from its own trials, and the mean over trials (pass@1, or any
scores) the mean of every item's mean: both are ordinary per-item scores once each
item is reduced, which needs only that item's row.  So a part takes every system's
items x trials table (NaN for a missing trial) and sums the items' estimates; an
item's trials must all be in its part's row (a long table is gathered by id first:
:mod:`pairboot.partitioned.dask`).  The answer is then ``pairboot.compare(...,
runs="samples", metric=..., ids=..., resampling="poisson", seed=...)``'s.  What needs
more than one estimate per item is refused: ``runs="seeds"`` (its two-way variance
reads every run of every item), a pooled metric's samples.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from pairboot.comparisons.runs.analysis import as_table
from pairboot.core.design import as_floats
from pairboot.errors import InputError
from pairboot.metrics import trials_metric
from pairboot.metrics.trials import NEEDS_SAMPLES, per_item_ids
from pairboot.options import Arguments, Data

__all__ = ["check_runs", "per_item_values", "refuse_trials_in_files"]


def check_runs(args: Arguments, data: Data) -> None:
    """The runs options a part can honour, refused in one line naming the option
    (before any part is read)."""
    if args.runs == "seeds":
        raise InputError("`runs='seeds'` is not available on partitioned data: its "
                         "two-way variance reads every run of every item in one place; "
                         "parts take runs='samples'", param="runs")
    trials = trials_metric(data.metric)
    if args.runs is None:
        if trials is not None:
            raise InputError(f"`metric='{trials.name}'` needs {NEEDS_SAMPLES}",
                             param="metric")
        return
    if trials is None and not (isinstance(data.metric, str) and data.metric == "mean"):
        raise InputError("with `runs='samples'` parts take the mean (pass@1) or a metric "
                         f"of k trials (pass^k, pass@k, maj@k), not {data.metric!r}",
                         param="metric")
    if args.test == "mcnemar":
        raise InputError("`test='mcnemar'` with `runs`: it compares one run per system",
                         param="test")
    if args.test == "permutation" and trials is None:
        raise InputError("`test='permutation'` with `runs`: samples are not exchangeable "
                         "across systems (a metric of k trials is: one estimate per "
                         "item)", param="test")


def refuse_trials_in_files(metric) -> None:
    """Files read in chunks hold one score per item and row: a metric of k trials is
    refused there, naming where its trials are read."""
    trials = trials_metric(metric)
    if trials is not None:
        raise InputError(f"`metric='{trials.name}'` reads every item's trials, which "
                         "compare_files does not take (one score per item and row): use "
                         "pairboot.dask.compare(..., runs='samples') or "
                         "part_from_arrays(..., runs='samples')", param="metric")


def per_item_values(names, values, args: Arguments, data: Data, item_ids=None):
    """Every system's items x trials table as its items' estimates, and ``data`` with
    the metric that compares them (the mean; a metric of k trials named as itself), as
    :func:`pairboot.compare` reduces them in memory.  ``item_ids``: how messages name
    an item (``data.ids`` when None).  Unchanged without ``runs``."""
    check_runs(args, data)
    if args.runs is None:
        return values, data
    ids = data.ids if item_ids is None else item_ids
    trials = trials_metric(data.metric)
    out = []
    for name, v in zip(names, values):
        y = _table(v, name, ids)
        out.append(trials.values(y, name, ids) if trials is not None
                   else np.nanmean(y, axis=1) if len(y) else np.zeros(0))
    if trials is not None:
        data = dataclasses.replace(data, metric=trials.metric())
    return out, data


def _table(values, name: str, ids) -> np.ndarray:
    """A system's items x trials table (NaN: no trial; an empty part's too), its first
    item without a trial named by its id (as :func:`pairboot.metrics.Trials.values`
    names the items; in memory a table's position)."""
    if len(values) == 0:
        return np.zeros((0, 1))
    y = as_floats(values, name)
    empty = (np.isnan(y).all(axis=1) if y.ndim == 2 else np.isnan(y) if y.ndim == 1
             else np.zeros(0, dtype=bool))  # (3-D: as_table refuses it)
    if empty.any():
        i = int(np.argmax(empty))
        label = repr(_plain(ids[i])) if per_item_ids(ids, len(y)) else str(i)
        raise InputError(f"`{name}` item {label} has no sample (every item needs at "
                         "least one trial)", param=name)
    return as_table(y, name, "samples")


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v

"""The keys of the Poisson bootstrap's units: items' ids (checked) or positions, groups' labels.

:func:`pairboot.core.design.build_design` takes the items in the order of their keys under
Poisson weights, so that the answer does not depend on the order of the rows; the keys
themselves are defined in :mod:`pairboot.engine.keys`.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from pairboot.engine.keys import id_keys, position_keys
from pairboot.errors import InputError
from pairboot.inputs.labels import shown

__all__ = ["item_keys", "group_keys", "take"]


def item_keys(ids, n: int, same_items: bool) -> np.ndarray | None:
    """Every item's key: from ``ids`` (one per item, no two alike), else its position
    (None for unpaired samples of different sizes, which are keyed per system)."""
    if ids is None:
        return position_keys(0, n) if same_items else None
    if not same_items:
        raise InputError("`ids` needs systems that score the same items", param="ids")
    if hasattr(ids, "to_numpy"):
        ids = ids.to_numpy()
    if not isinstance(ids, (np.ndarray, list, tuple)):
        ids = np.asarray(ids)
    # (a list goes to id_keys as it is: a list of ints takes its fast path there)
    try:
        keys = id_keys(ids)
    except ValueError as exc:
        _check_shape(ids, n)
        raise InputError(str(exc), param="ids") from None
    if len(keys) != n:
        _check_shape(ids, n)
    order = np.argsort(keys, kind="stable")
    same = np.flatnonzero(keys[order][1:] == keys[order][:-1])
    if same.size:
        i, j = sorted((int(order[same[0]]), int(order[same[0] + 1])))
        raise InputError(
            f"`ids` has the id {shown(ids[i])} twice (items {i} and {j}); "
            f"{same.size} id(s) repeat", param="ids",
        )
    return keys


def _check_shape(ids, n: int) -> None:
    """Refuse ``ids`` that are not one id per item, saying their shape (a list's as
    numpy objects)."""
    arr = ids if isinstance(ids, np.ndarray) else np.asarray(ids, dtype=object)
    if arr.ndim != 1 or len(arr) != n:
        raise InputError(f"`ids` must have one id per item ({n}), got shape {arr.shape}",
                         param="ids")


def take(labels, order: np.ndarray, name: str, n: int):
    """Per-item labels reordered (pandas: by position), their length checked first."""
    if hasattr(labels, "iloc"):
        if len(labels) != n:
            return labels  # (_labels says what is wrong)
        return labels.iloc[order].reset_index(drop=True)
    if hasattr(labels, "codes") and hasattr(labels, "categories"):
        codes = np.asarray(labels.codes)
        if codes.shape != (n,):
            return labels
        return SimpleNamespace(codes=codes[order], categories=list(labels.categories))
    arr = labels if isinstance(labels, np.ndarray) else np.asarray(labels, dtype=object)
    if arr.ndim != 1 or len(arr) != n:
        return labels
    return arr[order]


def group_keys(labels: np.ndarray) -> np.ndarray:
    """The groups' keys: their labels as ids."""
    try:
        return id_keys(labels, "groups")
    except ValueError as exc:
        raise InputError(f"{exc} (under Poisson resampling a group's key is its label)",
                         param="groups") from None


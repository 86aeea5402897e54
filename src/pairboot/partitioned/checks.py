"""The arguments of a run on parts, checked before any part is read: what the sums of
parts cannot give (BCa, the studentized interval, unpaired draws, a mean of group
means) is refused with the reason, and a family's comparisons are checked against the
systems' names."""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Sequence

from pairboot.core.family import family_targets
from pairboot.core.score import refuse_score
from pairboot.errors import InputError
from pairboot.options import Arguments, Data
from pairboot.partitioned.part_tests import check_test_arguments

__all__ = ["check_before_reading", "check_family", "refuse_unavailable"]


def check_before_reading(args: Arguments) -> Arguments:
    """The checked options of a run on parts, before any part is read: what the sums
    cannot give is refused with the reason; the run's seed is drawn when none is given
    (there is no data in one place to derive one from)."""
    refuse_unavailable(args)
    check_test_arguments(args)
    seed = secrets.randbelow(2**32) if args.seed is None else args.seed
    return dataclasses.replace(args, seed=seed)


def check_family(names: Sequence[str], data: Data, n_resamples: int | None = None
                 ) -> list[tuple[int, int]]:
    """A family's comparisons (``data.baseline`` or ``data.pairs``) checked against the
    systems' ``names`` (before any part is read, and again by :func:`finish_many`):
    (i, j), system j minus system i.  With ``n_resamples``, a family too large to
    compute is refused (:func:`pairboot.core.sizes.check_family_size`)."""
    return family_targets(list(names), data.baseline, data.pairs, n_resamples)


def refuse_unavailable(args: Arguments) -> None:
    """What needs every item in one place, refused with the reason."""
    method = args.method
    refuse_score(method, "on partitioned data", "the 2 x 2 table needs every item's "
                 "pair of scores; parts hold sums")
    if method in ("bca", "studentized"):
        why = ("BCa's jackknife leaves out one unit at a time" if method == "bca"
               else "the studentized interval needs every unit's cross products")
        raise InputError(f"`method={method!r}` is not available on partitioned data: "
                         f"{why}; use 'percentile', 'basic' or 'normal'", param="method")
    if not args.paired:
        raise InputError("`paired=False` is not available on partitioned data: it draws "
                         "every system independently; parts hold paired sums", param="paired")
    if args.group_weighting != "items":
        raise InputError("`group_weighting='groups'` is not available on partitioned data: "
                         "a group's mean needs all its items in one place",
                         param="group_weighting")

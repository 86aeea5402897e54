"""The arguments of a run on parts, checked before any part is read: what the sums of
parts cannot give (BCa, the studentized interval, unpaired draws, a mean of group
means) is refused with the reason, and a family's comparisons are checked against the
systems' names."""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from pairboot.core.family import family_margin, family_targets
from pairboot.core.score import refuse_score
from pairboot.errors import InputError
from pairboot.options import DEFAULTS, OPTIONS, check_arguments
from pairboot.partitioned.part_tests import check_test_arguments

__all__ = ["check_before_reading", "check_family", "refuse_unavailable"]


def check_before_reading(*, n_resamples, confidence_level, method, seed,
                         paired=DEFAULTS["paired"],
                         group_weighting=DEFAULTS["group_weighting"],
                         backend=DEFAULTS["backend"],
                         alternative=DEFAULTS["alternative"],
                         hypothesis=DEFAULTS["hypothesis"], margin=DEFAULTS["margin"],
                         lower_is_better=DEFAULTS["lower_is_better"],
                         test=DEFAULTS["test"]) -> int:
    """The arguments of a run on parts, checked before any part is read (what the sums
    cannot give is refused with the reason); returns the run's seed, drawn when it is
    None or "random" (there is no data in one place to derive one from)."""
    refuse_unavailable(method, paired, group_weighting)
    check_test_arguments(check_arguments(
        paired=True, group_weighting="items", n_resamples=n_resamples,
        confidence_level=confidence_level, method=method, seed=0, backend=backend,
        resampling="poisson", alternative=alternative, hypothesis=hypothesis,
        margin=family_margin(margin), lower_is_better=lower_is_better, test=test))
    seed = OPTIONS["seed"].check(seed)
    return secrets.randbelow(2**32) if seed is None else seed


def check_family(names: Sequence[str], *, baseline: str | None = None,
                 pairs: Sequence[tuple[str, str]] | None = None,
                 correction: str = "max-t", n_resamples: int | None = None
                 ) -> list[tuple[int, int]]:
    """A family's arguments checked against the systems' ``names`` (before any part is
    read, and again by :func:`finish_many`); returns the comparisons as (i, j): system
    j minus system i.  With ``n_resamples``, a family too large to compute is refused
    (:func:`pairboot.core.sizes.check_family_size`)."""
    targets = family_targets(list(names), baseline, pairs, n_resamples)
    OPTIONS["correction"].check(correction)
    return targets


def refuse_unavailable(method: str, paired, group_weighting) -> None:
    """What needs every item in one place, refused with the reason."""
    refuse_score(method, "on partitioned data", "the 2 x 2 table needs every item's "
                 "pair of scores; parts hold sums")
    if isinstance(method, str) and method.lower() in ("bca", "studentized"):
        why = ("BCa's jackknife leaves out one unit at a time" if method.lower() == "bca"
               else "the studentized interval needs every unit's cross products")
        raise InputError(f"`method={method.lower()!r}` is not available on partitioned data: "
                         f"{why}; use 'percentile', 'basic' or 'normal'", param="method")
    if paired is not True:
        raise InputError("`paired=False` is not available on partitioned data: it draws "
                         "every system independently; parts hold paired sums", param="paired")
    if group_weighting != "items":
        raise InputError("`group_weighting='groups'` is not available on partitioned data: "
                         "a group's mean needs all its items in one place",
                         param="group_weighting")

"""The paired permutation test (approximate randomization) on the engine's sums.

In permutation r every unit (an item, or a whole group) swaps A's and B's statistic
vectors with probability 1/2, independently: the swap is a pure function of the seed,
the unit's key and r (:mod:`pairboot.engine.swaps`, keyed as the Poisson weights are).
With ``W_r`` the sums of the swapped units' statistics, the permuted sums are
``S_A - W_A + W_B`` and ``S_B - W_B + W_A`` (a column of differences changes sign:
``S_d - 2 W_d``), and the metric is recomputed on them, so pooled F1, BLEU and ratios
are tested as sacrebleu's paired approximate randomization tests them.

Swapping every unit turns the statistic T into -T, and a swap pattern and its
complement are equally likely, so the null distribution of T is symmetric about 0 for
any metric: the two-sided p-value counts ``|T*| >= |T|``.  p is ``(1 + c) / (R + 1)``;
with at most 20 units (``2**20`` swaps,
:data:`pairboot.core.westfall_young.EXACT_PATTERNS`) every one of the ``2**n`` swaps is enumerated
and p is ``c / 2**n``, exact (swaps that leave the metric undefined are left out of
both counts, and the test's words say how many).
"""

from __future__ import annotations

import math

import numpy as np

from pairboot.core.design import Design
from pairboot.core.estimands import Estimands, observed_sums
from pairboot.core.westfall_young import SALT, refuse_margin, use_exact
from pairboot.engine.keys import seed_word
from pairboot.engine.swaps import swapped_unit_sums
from pairboot.errors import InputError
from pairboot.options import Arguments
from pairboot.results.compare import TestResult
from pairboot.stats.hypotheses import tie_tolerance

_BATCH = 8192
"""Permutations per step (their sums in memory at once)."""


def swap_word(seed: int) -> np.uint64:
    """The 64-bit word of the swaps of ``seed`` (its own stream, apart from the
    bootstrap's weights): what in-memory runs and parts both key the swaps with."""
    return seed_word(seed, SALT)


def swapped(design: Design, unit_sums: np.ndarray) -> np.ndarray:
    """The draw strata's sums with the swapped units' A and B exchanged, from the sums
    ``unit_sums`` (P, D, width) of the swapped units' rows: (P, D, width)."""
    return swapped_sums(observed_sums(design.plan)[0], design.k, unit_sums)


def swapped_sums(observed: np.ndarray, k: int, unit_sums: np.ndarray) -> np.ndarray:
    """The observed sums ``observed`` (D, width) with the swapped units' A and B
    exchanged (k columns each; the columns after them, differences, change sign), from
    the sums ``unit_sums`` (P, D, width) of the swapped units' rows: (P, D, width)."""
    out = np.repeat(observed[None], len(unit_sums), axis=0)
    a, b = unit_sums[..., :k], unit_sums[..., k:2 * k]
    out[..., :k] += b - a
    out[..., k:2 * k] += a - b
    out[..., 2 * k:] -= 2.0 * unit_sums[..., 2 * k:]
    return out


def enumerated(design: Design, batch: int = 1 << 15):
    """The swapped sums under every one of the ``2**n`` swap patterns of the n units, in
    batches of patterns (so that 20 units in many strata stay within memory)."""
    plan = design.plan
    n = len(plan.x)
    bits = np.arange(n)[None, :]
    for p0 in range(0, 2 ** n, batch):
        codes = np.arange(p0, min(p0 + batch, 2 ** n))[:, None]
        patterns = ((codes >> bits) & 1).astype(np.float64)
        unit_sums = np.zeros((len(codes), len(plan.starts), plan.n_columns))
        for d, (start, size) in enumerate(zip(plan.starts.tolist(), plan.sizes.tolist())):
            unit_sums[:, d] = patterns[:, start:start + size] @ plan.rows(start, start + size)
        yield swapped(design, unit_sums)


def _random(design: Design, args: Arguments, word):
    """The swapped sums of ``args.n_resamples`` random swap patterns, in batches."""
    for r0 in range(0, args.n_resamples, _BATCH):
        r1 = min(r0 + _BATCH, args.n_resamples)
        unit_sums, _ = swapped_unit_sums(design.plan, word, r0, r1, args.backend)
        yield swapped(design, unit_sums)


def permutation_test(design: Design, args: Arguments, seed: int) -> TestResult:
    """The paired permutation test of B - A on ``design`` (its units keyed), with
    ``args.n_resamples`` permutations, or all of them for a few units."""
    if not args.paired or design.n_systems != 2 or design.plan.keys is None:
        raise InputError("`test='permutation'` swaps A and B within each unit: it needs "
                         "paired items, not `paired=False`", param="test")
    refuse_margin(args)
    exact = use_exact(args.exact, len(design.plan.x), 2)
    swaps = enumerated(design) if exact else _random(design, args, swap_word(seed))
    return permutation_result(design, args, observed_sums(design.plan), swaps, exact=exact)


def permutation_result(design: Design, args: Arguments, observed: np.ndarray, swaps, *,
                       exact: bool, absolute=None, exact_sums=None, note: str = ""
                       ) -> TestResult:
    """The permutation test's result from the observed sums ``observed`` (1, D, width)
    and ``swaps``, the swapped sums (:func:`swapped_sums`) of every permutation in
    batches, whatever produced them: every swap pattern (``exact``: p is the share of
    them), or random ones (p is ``(1 + count) / (R + 1)``).  ``absolute`` and
    ``exact_sums`` as for :class:`~pairboot.core.estimands.Estimands` (parts give theirs);
    ``note`` is added to the method's words."""
    n_units = int(design.plan.sizes.sum())
    coef, combined = design.combination()
    t, values = math.nan, []
    for sums in swaps:
        core = Estimands(design, sums, observed, None, names=("A", "B"), absolute=absolute,
                         exact=exact_sums)
        est = core.estimate((0, 1), coef, bca=False, combined=combined)
        t = est.boot.estimate
        values.append(est.replicates)
    null = np.concatenate(values)
    undefined = int(np.count_nonzero(~np.isfinite(null)))
    null = null[np.isfinite(null)]
    # (the permuted sums are the observed ones rearranged: a hair of rounding either way)
    slack = tie_tolerance(t, float(np.abs(null).max()) if null.size else 0.0)
    side = args.alternative
    if side == "greater":
        count = int(np.count_nonzero(null >= t - slack))
    elif side == "less":
        count = int(np.count_nonzero(null <= t + slack))
    else:
        count = int(np.count_nonzero(np.abs(null) >= abs(t) - slack))
    p = count / len(null) if exact else (1 + count) / (len(null) + 1)
    if not math.isfinite(t) or not null.size:  # (no statistic to test)
        p = math.nan
    unit = "groups" if design.n_groups is not None else "items"
    rule = {"greater": "T* >= T", "less": "T* <= T"}.get(side, "|T*| >= |T|")
    how = (f"all {2 ** n_units:,} swaps of the {n_units} {unit} (exact)" if exact else
           f"{len(null):,} random swaps of the {n_units:,} {unit}, p = (1 + count) / (R + 1)")
    if undefined:  # (patterns whose swapped sums leave the metric undefined: 0/0)
        how += (f"; {undefined:,} of {len(null) + undefined:,} swaps left the metric "
                "undefined and are left out")
    how += note
    return TestResult(
        name="permutation", p_value=p if math.isnan(p) else min(1.0, p), p_value_mid=None,
        statistic=float(t),
        exact=exact, alternative=side, n=n_units,
        method=(f"paired permutation test: in {how}, each unit's A and B swap with "
                f"probability 1/2 and {design.metric.name} is recomputed on the swapped "
                f"sums; p counts {rule} (the null is symmetric about 0)"),
        null_distribution=null,
    )

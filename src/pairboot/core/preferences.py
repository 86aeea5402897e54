"""Battles as units of sufficient statistics, and every statistic of preferences on sums.

A unit is a prompt (``cluster="prompt"``: all its battles drawn together) or a battle.
Its vector holds, for each unordered pair of systems met (``pairs``, the lower code
first), the first's weighted wins, the ties and the second's wins (a fractional verdict
splits its weight between the two wins), then four numbers for the position bias: the
weight of battles whose order is known, the first-shown answer's share of it, the
swapped pairs of games and how many of them flip.  The engine draws the units; the
ratings (:mod:`pairboot.stats.bradley_terry`), win rates and the bias are read off the
sums of every replicate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pairboot.core.design import hash_arrays, seed_hasher
from pairboot.errors import InputError
from pairboot.inputs.labels import shown

__all__ = ["POSITION", "PreferenceDesign", "components", "design_of", "derived_seed",
           "pair_counts", "position_rates", "refuse_disconnected", "win_counts"]

POSITION = 4
"""The position-bias columns at the end of a unit's vector."""


@dataclass(frozen=True)
class PreferenceDesign:
    """The units of a set of battles (see the module's words)."""

    names: tuple[str, ...]
    pairs: np.ndarray
    """(P, 2) system codes, each unordered pair met once, the lower first."""
    x: np.ndarray
    """(n_units, 3 P + POSITION)."""
    n_prompts: int
    n_battles: int
    discrete: bool
    """Every verdict is a win, a tie or a loss (no fractional share)."""

    @property
    def m(self) -> int:
        return len(self.names)


def design_of(prompts, a, b, outcome, weight, game, *, cluster: str, use: np.ndarray,
              names: tuple[str, ...], swaps: bool = True) -> PreferenceDesign:
    """The units of the battles; ``use`` marks those the ratings and win rates count
    (the games of ``orders``), every battle with a known order counts for the bias
    (``swaps``: its columns filled, else left 0)."""
    code = {name: k for k, name in enumerate(names)}
    ca = np.fromiter((code[s] for s in a), np.int64, len(a))
    cb = np.fromiter((code[s] for s in b), np.int64, len(b))
    lo, hi = np.minimum(ca, cb), np.maximum(ca, cb)
    share = np.where(ca == lo, outcome, 1.0 - outcome)  # the lower code's share
    m = len(names)
    pair_key = lo * m + hi
    met = np.unique(pair_key[use])
    pairs = np.stack([met // m, met % m], axis=1)
    col = np.searchsorted(met, pair_key)
    prompt_codes, prompt_of = np.unique(np.asarray(prompts, dtype=str), return_inverse=True)
    unit = prompt_of if cluster == "prompt" else np.arange(len(prompts))
    n_units = len(prompt_codes) if cluster == "prompt" else len(prompts)
    k = 3 * len(met)
    x = np.zeros((n_units, k + POSITION))
    tie = share == 0.5
    u, c, s, w = unit[use], col[use], share[use], weight[use]
    np.add.at(x, (u, 3 * c), np.where(tie[use], 0.0, w * s))
    np.add.at(x, (u, 3 * c + 1), np.where(tie[use], w, 0.0))
    np.add.at(x, (u, 3 * c + 2), np.where(tie[use], 0.0, w * (1.0 - s)))
    if swaps:
        known = game >= 0
        np.add.at(x, (unit[known], k), weight[known])
        np.add.at(x, (unit[known], k + 1), (weight * outcome)[known])
        first, flips = _swaps(prompt_of, pair_key, share, game)
        np.add.at(x, (unit[first], k + 2), 1.0)
        np.add.at(x, (unit[first], k + 3), flips)
    discrete = bool(np.all(np.isin(outcome[use], (0.0, 0.5, 1.0))))
    return PreferenceDesign(tuple(names), pairs, x, len(prompt_codes), int(use.sum()),
                            discrete)


def _swaps(prompt_of, pair_key, share, game) -> tuple[np.ndarray, np.ndarray]:
    """The first games that have a swapped game on the same prompt and pair (the k-th
    first with the k-th swapped, in file order), and whether each pair flips: its
    winner (win, tie or loss of the lower code) differs between the two orders."""
    known = np.flatnonzero(game >= 0)
    if known.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    key = np.unique(np.stack([prompt_of[known], pair_key[known], game[known]], axis=1),
                    axis=0, return_inverse=True)[1].reshape(-1)
    order = np.lexsort((known, key))
    ks = key[order]
    start = np.r_[0, np.flatnonzero(np.diff(ks)) + 1]
    occurrence = np.empty(known.size, dtype=np.int64)
    occurrence[order] = np.arange(known.size) - np.repeat(start, np.diff(np.r_[start,
                                                                            known.size]))
    slot = np.unique(np.stack([prompt_of[known], pair_key[known], occurrence], axis=1),
                     axis=0, return_inverse=True)[1].reshape(-1)
    g = game[known]
    where0 = np.full(slot.max() + 1, -1, dtype=np.int64)
    where1 = where0.copy()
    where0[slot[g == 0]] = known[g == 0]
    where1[slot[g == 1]] = known[g == 1]
    both = (where0 >= 0) & (where1 >= 0)
    first, second = where0[both], where1[both]
    side = np.sign(share - 0.5)
    return first, (side[first] != side[second]).astype(np.float64)


def components(names, pairs: np.ndarray) -> list[list[str]]:
    """The systems in groups that the pairs connect (directly or through others)."""
    parent = list(range(len(names)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in pairs.tolist():
        parent[root(i)] = root(j)
    groups: dict[int, list[str]] = {}
    for k, name in enumerate(names):
        groups.setdefault(root(k), []).append(name)
    return sorted(groups.values(), key=lambda g: (-len(g), g))


def refuse_disconnected(design: PreferenceDesign) -> None:
    """One line naming the systems when the battles do not connect them all."""
    parts = components(design.names, design.pairs)
    if len(parts) > 1:
        said = " | ".join(", ".join(shown(n) for n in g[:6]) + (
            f" (+{len(g) - 6} more)" if len(g) > 6 else "") for g in parts)
        raise InputError(f"the battles do not connect the systems, so their ratings "
                         f"cannot be compared: {len(parts)} groups never meet: {said}",
                         param="battles")


def pair_counts(s: np.ndarray, n_pairs: int) -> np.ndarray:
    """(R, P, 3) per pair from sums ``s`` (R, 3 P + POSITION)."""
    return s[:, : 3 * n_pairs].reshape(s.shape[0], n_pairs, 3)


def win_counts(counts: np.ndarray, pairs: np.ndarray, m: int, against: int | None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each system's weighted ``(wins, ties, losses)``, each (R, m): over all its battles,
    or those against system ``against`` only."""
    keep = np.ones(len(pairs), dtype=bool) if against is None else (pairs == against).any(1)
    r = counts.shape[0]
    wins, ties, losses = (np.zeros((r, m)) for _ in range(3))
    for p in np.flatnonzero(keep).tolist():
        i, j = pairs[p]
        wins[:, i] += counts[:, p, 0]
        losses[:, i] += counts[:, p, 2]
        wins[:, j] += counts[:, p, 2]
        losses[:, j] += counts[:, p, 0]
        ties[:, i] += counts[:, p, 1]
        ties[:, j] += counts[:, p, 1]
    return wins, ties, losses


def position_rates(s: np.ndarray, n_pairs: int) -> tuple[np.ndarray, np.ndarray,
                                                         np.ndarray]:
    """``(first-shown share (R,), flip rate (R,), swapped pairs (R,))`` from the sums;
    NaN where a replicate drew none."""
    k = 3 * n_pairs
    with np.errstate(invalid="ignore", divide="ignore"):
        first = s[:, k + 1] / s[:, k]
        flips = s[:, k + 3] / s[:, k + 2]
    return first, flips, s[:, k + 2]


def derived_seed(design: PreferenceDesign, words: tuple[str, ...]) -> int:
    """The seed of a run given none: BLAKE2b over the units (little-endian float64), the
    systems and the options that shape the draws, as :func:`pairboot.core.design.
    derived_seed` does for scores."""
    h = hash_arrays(seed_hasher(b"pairboot-prefs"), ((design.x, "<f8"),))
    h.update("\x1f".join((*design.names, *words)).encode("utf-8", "surrogatepass"))
    return int.from_bytes(h.digest(), "little") % 2**32

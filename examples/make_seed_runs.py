"""Write ``seed_runs.csv``: two fine-tuned classifiers, five training seeds each.

    python examples/make_seed_runs.py

The file is deterministic (same bytes on every run) and in the long layout ``id,run,a,b``:
one row per test item and training run, ``a`` and ``b`` the 0/1 correctness of system A
and system B trained with that seed.  Compare it with

    pairboot compare examples/seed_runs.csv --a a --b b --id id --run run --runs seeds

The model (WMT20 and the other public data have one run per system, so this one is
simulated).  For system ``s``, item ``i`` and seed ``r``, the item is answered correctly
with probability ``logistic(eta_s,ir)``, independently given ``eta``::

    eta_A,ir = THETA_A + d_i            + u_A,r + w_A,ir
    eta_B,ir = THETA_B + d_i + delta_i  + u_B,r + w_B,ir

- ``d_i ~ N(0, 1.5^2)``: the item's difficulty, shared by both systems (most of the
  spread of per-item scores; it cancels in the paired difference);
- ``delta_i ~ N(0, 0.5^2)``: what B does better or worse on this item than its average
  gain (the paired item difference);
- ``u_s,r ~ N(0, 0.15^2)``: the training seed's effect on every item (a lucky seed lifts
  the whole run); on the accuracy scale about 2 points of run-to-run sd, as fine-tuning
  studies report for pretrained models on small tasks (Dodge et al. 2020, "Fine-Tuning
  Pretrained Language Models: Weight Initializations, Data Orders, and Early Stopping");
- ``w_s,ir ~ N(0, 0.7^2)``: the seed's item-specific effect (borderline items flip from
  seed to seed); together with the Bernoulli draw it is the residual of the two-way
  table;
- ``THETA_A = 0.8``, ``THETA_B = 1.0``: B is better by about 3 points of accuracy
  (``B_TRUE`` below is the population difference, integrated over items and seeds).

A and B are trained independently (seed 1 of A shares nothing with seed 1 of B), so the
runs are not paired: ``--runs seeds`` without ``--paired-runs``.  300 items x 5 seeds.
"""

from __future__ import annotations

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

N_ITEMS, N_SEEDS = 300, 5
THETA_A, THETA_B = 0.8, 1.0
SD_ITEM, SD_DELTA, SD_SEED, SD_ITEM_SEED = 1.5, 0.5, 0.15, 0.7
SEED = 20261201


def population_difference(n_draws: int = 2_000_000, seed: int = 1) -> float:
    """The estimand: mean accuracy of B minus A over items and seeds (Monte Carlo)."""
    rng = np.random.default_rng(seed)
    d = rng.normal(0, SD_ITEM, n_draws)
    noise_a = rng.normal(0, np.hypot(SD_SEED, SD_ITEM_SEED), n_draws)
    noise_b = rng.normal(0, np.hypot(SD_SEED, SD_ITEM_SEED), n_draws)
    delta = rng.normal(0, SD_DELTA, n_draws)
    p_a = 1 / (1 + np.exp(-(THETA_A + d + noise_a)))
    p_b = 1 / (1 + np.exp(-(THETA_B + d + delta + noise_b)))
    return float(np.mean(p_b - p_a))


def simulate(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Items x seeds 0/1 tables of A and B."""
    d = rng.normal(0, SD_ITEM, N_ITEMS)
    delta = rng.normal(0, SD_DELTA, N_ITEMS)
    tables = []
    for theta, gain in ((THETA_A, 0.0), (THETA_B, delta)):
        seed_effect = rng.normal(0, SD_SEED, N_SEEDS)
        item_seed = rng.normal(0, SD_ITEM_SEED, (N_ITEMS, N_SEEDS))
        eta = theta + (d + gain)[:, None] + seed_effect[None, :] + item_seed
        p = 1 / (1 + np.exp(-eta))
        tables.append((rng.random(p.shape) < p).astype(int))
    return tables[0], tables[1]


def main() -> None:
    a, b = simulate(np.random.default_rng(SEED))
    path = os.path.join(HERE, "seed_runs.csv")
    with open(path, "w", newline="\n") as out:
        out.write("id,run,a,b\n")
        for r in range(N_SEEDS):
            for i in range(N_ITEMS):
                out.write(f"q{i + 1:03d},seed{r + 1},{a[i, r]},{b[i, r]}\n")
    print(f"wrote {path}: {N_ITEMS} items x {N_SEEDS} seeds; accuracy A {a.mean():.3f}, "
          f"B {b.mean():.3f}; population difference {population_difference():.4f}")


if __name__ == "__main__":
    main()

"""The golden comparisons: small, deterministic inputs spanning every feature of compare().

Each case is a dict:

- ``name``: unique, used as the test id;
- ``data``: ``(builder, params)``: one of the functions below, called with ``params``
  (which always hold the ``seed`` of ``numpy.random.default_rng``); it returns the keyword
  arguments ``a``, ``b`` and, when used, ``groups`` and ``strata``;
- ``kwargs``: the other keyword arguments of :func:`pairboot.compare` (always an explicit
  ``seed``).

:func:`build` turns a case into the full keyword arguments.  Sizes are small, except where
a path needs size (the engine's rule: ``auto`` picks numba from 30,000,000 draws; a draw
stratum of 2**19 units or more is drawn by the tree scheme; numba counts instead of
gathering above 64 KiB of rows).
"""

from __future__ import annotations

import numpy as np

# --- data builders ---------------------------------------------------------------------------


def _labels(prefix: str, codes: np.ndarray) -> np.ndarray:
    return np.array([f"{prefix}{c}" for c in codes.tolist()], dtype=object)


def _clusters(rng, n: int, groups: int | None, strata: int | None, unequal: bool):
    """Group and stratum codes (a group lies within one stratum) and their labels."""
    gcodes = scodes = None
    if groups is not None:
        if unequal:  # a few big groups and many small ones
            gcodes = np.minimum(rng.geometric(0.12, n) - 1, groups - 1)
        else:
            gcodes = rng.integers(0, groups, n)
    if strata is not None:
        scodes = gcodes % strata if gcodes is not None else rng.integers(0, strata, n)
    out = {}
    if gcodes is not None:
        out["groups"] = _labels("g", gcodes)
    if scodes is not None:
        out["strata"] = _labels("s", scodes)
    return out, gcodes, scodes


def scores(seed: int, n: int, *, shift=0.05, noise=0.1, groups=None, strata=None,
           unequal=False, n_b=None):
    """Continuous per-item scores around 0.5; B = A + shift + noise.

    Groups add a shared effect to both systems and to their difference; strata shift the
    difference.  ``n_b`` draws B's sample separately with another size (unpaired)."""
    rng = np.random.default_rng(seed)
    a = rng.normal(0.5, 0.2, n)
    d = rng.normal(shift, noise, n)
    out, gcodes, scodes = _clusters(rng, n, groups, strata, unequal)
    if gcodes is not None:
        effect = rng.normal(0.0, 0.15, int(gcodes.max()) + 1)
        a = a + effect[gcodes]
        d = d + 0.3 * effect[gcodes]
    if scodes is not None:
        d = d + 0.04 * scodes
    b = a + d
    if n_b is not None:
        b = rng.normal(0.5 + shift, 0.2, n_b)
    return {"a": a, "b": b, **out}


def constant_difference(seed: int, n: int, *, delta=0.25):
    rng = np.random.default_rng(seed)
    a = rng.normal(0.5, 0.2, n)
    return {"a": a, "b": a + delta}


def binary(seed: int, n: int, *, pa=0.6, pb=0.68, agree=0.7, strata=None):
    """0/1 correctness (the exact multinomial path): B agrees with A on ``agree`` of the
    items and is otherwise drawn on its own."""
    rng = np.random.default_rng(seed)
    a = (rng.random(n) < pa).astype(float)
    own = (rng.random(n) < pb).astype(float)
    b = np.where(rng.random(n) < agree, a, own)
    out, _, _ = _clusters(rng, n, None, strata, False)
    return {"a": a, "b": b, **out}


def few_values(seed: int, n: int, *, values=(0.0, 0.25, 0.5, 1.0), strata=None):
    """Scores among a few values (still the exact path: few distinct (a, b) rows)."""
    rng = np.random.default_rng(seed)
    values = np.asarray(values)
    a = rng.choice(values, n, p=[0.3, 0.2, 0.2, 0.3])
    b = rng.choice(values, n, p=[0.2, 0.2, 0.25, 0.35])
    out, _, _ = _clusters(rng, n, None, strata, False)
    return {"a": a, "b": b, **out}


def mixed_strata(seed: int, n_binary: int, n_scores: int):
    """Stratum "bin" of 0/1 scores (exact path), stratum "cont" of continuous scores."""
    rng = np.random.default_rng(seed)
    a1 = (rng.random(n_binary) < 0.6).astype(float)
    b1 = np.where(rng.random(n_binary) < 0.8, a1, (rng.random(n_binary) < 0.7).astype(float))
    a2 = rng.normal(0.5, 0.2, n_scores)
    b2 = a2 + rng.normal(0.03, 0.1, n_scores)
    strata = np.array(["bin"] * n_binary + ["cont"] * n_scores, dtype=object)
    return {"a": np.concatenate([a1, a2]), "b": np.concatenate([b1, b2]), "strata": strata}


def ratio(seed: int, n: int, *, zero_share=0.0, groups=None):
    """(numerator, denominator) per item: errors over reference words.  With
    ``zero_share``, that share of items has 0 / 0 (resamples of only those are undefined)."""
    rng = np.random.default_rng(seed)
    den = rng.integers(3, 25, n).astype(float)
    num_a = rng.binomial(den.astype(int), 0.2).astype(float)
    num_b = rng.binomial(den.astype(int), 0.16).astype(float)
    if zero_share:
        empty = rng.random(n) < zero_share
        den[empty] = num_a[empty] = num_b[empty] = 0.0
    out, _, _ = _clusters(rng, n, groups, None, False)
    return {"a": np.column_stack([num_a, den]), "b": np.column_stack([num_b, den]), **out}


def accuracy(seed: int, n: int, *, strata=None):
    """(correct, total) tokens per sentence."""
    rng = np.random.default_rng(seed)
    total = rng.integers(5, 30, n)
    a = rng.binomial(total, 0.8)
    b = rng.binomial(total, 0.84)
    out, _, scodes = _clusters(rng, n, None, strata, False)
    if scodes is not None:  # a harder stratum
        a = np.where(scodes == 0, rng.binomial(total, 0.6), a)
    total = total.astype(float)
    return {"a": np.column_stack([a, total]), "b": np.column_stack([b, total]), **out}


def prf(seed: int, n: int, *, columns=("tp", "fp", "fn"), rate=1.5, positives=None,
        strata=None):
    """Per-item tp, fp, fn counts (the named columns, in that order); B finds more of
    A's false negatives.  ``positives``: only that many items have any tp or fn."""
    rng = np.random.default_rng(seed)
    tp = rng.poisson(rate, n)
    fn = rng.poisson(0.6 * rate, n)
    if positives is not None:
        keep = np.zeros(n, dtype=bool)
        keep[rng.choice(n, positives, replace=False)] = True
        tp, fn = np.where(keep, tp + 1, 0), np.where(keep, fn, 0)
    found = rng.binomial(fn, 0.3)
    fp_a = rng.poisson(0.5 * rate, n)
    fp_b = rng.poisson(0.45 * rate, n)
    if positives is not None:
        fp_a, fp_b = np.where(tp > 0, fp_a, 0), np.where(tp > 0, fp_b, 0)
    sys_a = {"tp": tp, "fp": fp_a, "fn": fn}
    sys_b = {"tp": tp + found, "fp": fp_b, "fn": fn - found}
    out, _, _ = _clusters(rng, n, None, strata, False)
    return {
        "a": np.column_stack([sys_a[c] for c in columns]).astype(float),
        "b": np.column_stack([sys_b[c] for c in columns]).astype(float),
        **out,
    }


def macro_counts(seed: int, n: int, *, shares=(0.6, 0.3, 0.1)):
    """Per-item one-hot tp, fp, fn for each of len(shares) classes (macro F1)."""
    rng = np.random.default_rng(seed)
    c = len(shares)
    y = rng.choice(c, n, p=shares)

    def predict(accuracy):
        right = rng.random(n) < accuracy
        return np.where(right, y, rng.integers(0, c, n))

    def counts(pred):
        cols = []
        for k in range(c):
            cols += [(y == k) & (pred == k), (y != k) & (pred == k), (y == k) & (pred != k)]
        return np.column_stack(cols).astype(float)

    return {"a": counts(predict(0.7)), "b": counts(predict(0.78))}


def bleu(seed: int, n: int, *, order=4):
    """sacrebleu's per-sentence statistics: sys_len, ref_len, correct_1..N, total_1..N."""
    rng = np.random.default_rng(seed)
    ref_len = rng.integers(6, 30, n)

    def system(q):
        sys_len = np.maximum(ref_len + rng.integers(-4, 3, n), 1)
        total = np.column_stack([np.maximum(sys_len - k, 0) for k in range(order)])
        correct = rng.binomial(total, q ** np.arange(1, order + 1))
        return np.column_stack([sys_len, ref_len, correct, total]).astype(float)

    return {"a": system(0.55), "b": system(0.62)}


BUILDERS = {f.__name__: f for f in (scores, constant_difference, binary, few_values,
                                    mixed_strata, ratio, accuracy, prf, macro_counts, bleu)}

TREE_N = (1 << 19) + 1000
"""Above the engine's TREE_UNITS (2**19): drawn top bits first."""

# --- the cases -------------------------------------------------------------------------------


def _case(name, builder, params, **kwargs):
    kwargs.setdefault("n_resamples", 2000)
    assert "seed" in kwargs and "seed" in params, name
    return {"name": name, "data": (builder, params), "kwargs": kwargs}


CASES = [
    # paired mean, every method
    _case("mean_percentile", "scores", {"seed": 1, "n": 60}, seed=11),
    _case("mean_basic", "scores", {"seed": 1, "n": 60}, seed=11, method="basic"),
    _case("mean_normal", "scores", {"seed": 1, "n": 60}, seed=11, method="normal"),
    _case("mean_bca", "scores", {"seed": 1, "n": 60}, seed=11, method="bca"),
    _case("mean_studentized", "scores", {"seed": 1, "n": 60}, seed=11, method="studentized"),
    _case("mean_level90_999_resamples", "scores", {"seed": 2, "n": 45, "shift": 0.0},
          seed=12, confidence_level=0.9, n_resamples=999, method="bca"),
    _case("mean_few_resamples", "scores", {"seed": 3, "n": 40}, seed=13, n_resamples=100),
    # unpaired
    _case("unpaired_percentile", "scores", {"seed": 4, "n": 50}, seed=14, paired=False),
    _case("unpaired_sizes_bca", "scores", {"seed": 5, "n": 50, "n_b": 25},
          seed=15, paired=False, method="bca"),
    _case("unpaired_sizes_studentized", "scores", {"seed": 5, "n": 50, "n_b": 25},
          seed=15, paired=False, method="studentized"),
    _case("unpaired_groups_strata_basic", "scores",
          {"seed": 6, "n": 120, "groups": 30, "strata": 2}, seed=16, paired=False,
          method="basic"),
    # groups
    _case("groups_items_percentile", "scores", {"seed": 7, "n": 150, "groups": 35},
          seed=17, group_weighting="items"),
    _case("groups_unequal_items_bca", "scores",
          {"seed": 8, "n": 200, "groups": 40, "unequal": True}, seed=18, method="bca"),
    _case("groups_unequal_groups_percentile", "scores",
          {"seed": 8, "n": 200, "groups": 40, "unequal": True}, seed=18,
          group_weighting="groups"),
    _case("groups_groups_studentized", "scores", {"seed": 9, "n": 150, "groups": 35},
          seed=19, group_weighting="groups", method="studentized"),
    # strata
    _case("strata_shares_percentile", "scores", {"seed": 10, "n": 90, "strata": 3}, seed=20),
    _case("strata_weights_bca", "scores", {"seed": 10, "n": 90, "strata": 3}, seed=20,
          method="bca", strata_weights={"s0": 0.5, "s1": 0.3, "s2": 0.2}),
    _case("strata_weights_studentized", "scores", {"seed": 10, "n": 90, "strata": 3},
          seed=20, method="studentized", strata_weights={"s0": 1, "s1": 2, "s2": 7}),
    _case("groups_in_strata_items_weights", "scores",
          {"seed": 11, "n": 200, "groups": 40, "strata": 2}, seed=21,
          strata_weights={"s0": 0.7, "s1": 0.3}),
    _case("groups_in_strata_groups_basic", "scores",
          {"seed": 11, "n": 200, "groups": 40, "strata": 2}, seed=21,
          group_weighting="groups", method="basic"),
    # degenerate and small
    _case("small_n_percentile", "scores", {"seed": 12, "n": 8}, seed=22),
    _case("small_n_studentized", "scores", {"seed": 12, "n": 4}, seed=22,
          method="studentized"),
    _case("constant_difference_percentile", "constant_difference", {"seed": 13, "n": 40},
          seed=23),
    _case("constant_difference_bca", "constant_difference", {"seed": 13, "n": 40}, seed=23,
          method="bca"),
    _case("identical_systems_normal", "constant_difference",
          {"seed": 14, "n": 40, "delta": 0.0}, seed=24, method="normal"),
    # the exact multinomial path
    _case("binary_exact_percentile", "binary", {"seed": 15, "n": 400}, seed=25),
    _case("binary_exact_bca", "binary", {"seed": 15, "n": 400}, seed=25, method="bca"),
    _case("few_values_exact_strata_studentized", "few_values",
          {"seed": 16, "n": 700, "strata": 2}, seed=26, method="studentized"),
    _case("binary_exact_unpaired", "binary", {"seed": 17, "n": 320}, seed=27, paired=False),
    _case("mixed_exact_and_index_strata", "mixed_strata",
          {"seed": 18, "n_binary": 400, "n_scores": 50}, seed=28),
    # pooled metrics
    _case("ratio_percentile", "ratio", {"seed": 19, "n": 50}, seed=29, metric="ratio"),
    _case("ratio_groups_bca", "ratio", {"seed": 20, "n": 80, "groups": 25}, seed=30,
          metric="ratio", method="bca"),
    _case("ratio_undefined_resamples", "ratio", {"seed": 21, "n": 40, "zero_share": 0.9},
          seed=31, metric="ratio"),
    _case("accuracy_percentile", "accuracy", {"seed": 22, "n": 50}, seed=32,
          metric="accuracy"),
    _case("accuracy_strata_weights_normal", "accuracy", {"seed": 23, "n": 80, "strata": 2},
          seed=33, metric="accuracy", method="normal",
          strata_weights={"s0": 0.2, "s1": 0.8}),
    _case("f1_percentile", "prf", {"seed": 24, "n": 60}, seed=34, metric="f1"),
    _case("f1_bca", "prf", {"seed": 24, "n": 60}, seed=34, metric="f1", method="bca"),
    _case("f1_studentized", "prf", {"seed": 24, "n": 60}, seed=34, metric="f1",
          method="studentized"),
    _case("f1_strata_weights_percentile", "prf", {"seed": 25, "n": 80, "strata": 2},
          seed=35, metric="f1", strata_weights={"s0": 3, "s1": 1}),
    _case("precision_basic", "prf", {"seed": 26, "n": 60, "columns": ("tp", "fp")},
          seed=36, metric="precision", method="basic"),
    _case("recall_undefined_resamples", "prf",
          {"seed": 27, "n": 30, "columns": ("tp", "fn"), "positives": 3},
          seed=37, metric="recall"),
    _case("macro_f1_percentile", "macro_counts", {"seed": 28, "n": 80}, seed=38,
          metric="macro_f1"),
    _case("macro_f1_rare_class_bca", "macro_counts",
          {"seed": 29, "n": 40, "shares": (0.7, 0.27, 0.03)}, seed=39, metric="macro_f1",
          method="bca"),
    _case("bleu_percentile", "bleu", {"seed": 30, "n": 40}, seed=40, metric="bleu"),
    _case("bleu_studentized", "bleu", {"seed": 30, "n": 40}, seed=40, metric="bleu",
          method="studentized", n_resamples=500),
    # backends: numba forced on small data (auto would pick numpy) ...
    _case("numba_mean_gather", "scores", {"seed": 31, "n": 60}, seed=41, backend="numba"),
    _case("numba_mean_count_path", "scores", {"seed": 32, "n": 20_000, "noise": 1.0},
          seed=42, backend="numba", n_resamples=1000),
    _case("numba_f1_studentized", "prf", {"seed": 24, "n": 60}, seed=34, metric="f1",
          method="studentized", backend="numba"),
    _case("numba_groups_in_strata_bca", "scores",
          {"seed": 11, "n": 200, "groups": 40, "strata": 2}, seed=21, method="bca",
          backend="numba"),
    _case("numba_unpaired_sizes", "scores", {"seed": 5, "n": 50, "n_b": 25}, seed=15,
          paired=False, backend="numba"),
    _case("numba_tree", "scores", {"seed": 33, "n": TREE_N, "noise": 1.0, "shift": 0.002},
          seed=43, backend="numba", n_resamples=64),
    # ... numpy forced where auto would pick numba (30,000,000 draws), and auto itself
    _case("numpy_mean_30M_draws", "scores", {"seed": 34, "n": 30_000, "noise": 1.0},
          seed=44, backend="numpy", n_resamples=1000),
    _case("auto_mean_30M_draws", "scores", {"seed": 34, "n": 30_000, "noise": 1.0},
          seed=44, n_resamples=1000),
    _case("numpy_tree", "scores", {"seed": 33, "n": TREE_N, "noise": 1.0, "shift": 0.002},
          seed=43, backend="numpy", n_resamples=64),
]

assert len({c["name"] for c in CASES}) == len(CASES)


def build(case: dict) -> dict:
    """The keyword arguments of ``pairboot.compare`` for ``case`` (data included)."""
    builder, params = case["data"]
    return {**BUILDERS[builder](**params), **case["kwargs"]}
